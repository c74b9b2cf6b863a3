"""Which row a question names, the way people name it (issue 64).

People name a row by its distinctive words: "the Leak Puck" for "Tallow Leak Puck", "leakpuck", "Glas Break",
"the Motion". A name's words are weighted by how rare they are among the names of the table (or of the passages at
hand): a brand every row carries ("Tallow") weighs about nothing, a word one row has weighs most. A question's word
meets a name's word when it is the same after case and accent folding, when two of its words written together are
one of the name's (or the reverse: "Flow meter" / "Flowmeter"), when it is one edit away and five letters or longer
(a misspelling), or when it starts the name's word and is four letters or longer (a shortening).

The row named is the one whose distinctive words the question covers best; rows matched by the same words but less
covered are named beside it ("Motion" → Tallow Motion, also Tallow Motion Outdoor). A question that writes an unknown
word in the name's place names no row: "the temperature probe" is not the Thermo Probe, "Tallow Smoke Alarm" is not
the Tallow Glass Break.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from itertools import pairwise

from biny.core.structured.lexicon import CONCEPTS, COUNT_WORDS, UNIT_WORDS
from biny.core.text.common_words import language_beside, own_language_word

CJK = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+")
HAS_CJK = re.compile(rf"[{CJK}]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u9fff]")
# A long catalogue name's head: "Yellow Whistle Ninja Bag (Jumbo Size). Sports Balls …" is also "Yellow Whistle …".
_HEAD_CUT = re.compile(r"\s+[-–—|]\s+|\s*[(（\[:：]|,\s|\.\s|;\s")
# A name's qualifier: after a spaced dash, or in brackets.
_TAIL = re.compile(r"\s+[-–—]\s+.*$|\s*[(（\[][^)）\]]*[)）\]]")
_TAIL_CREDIT = 0.3
# Words that never name a row on their own, in the languages questions come in (lower case).
STOPWORDS = frozenset("""a an the of in on at to for by with and or is are was were be been do does did how many much
what which who whom whose where when why list show me give find name all any there this that these those it its their
than more less most least over under about from into per each every my your our i you we can could would will should
tell please long last did has have had get got
der die das den dem des ein eine einen einem einer eines und oder ist sind war wie viel viele was wann wer welche
welcher welches hat haben von mit für im am zum zur auf aus bei es sie er ich du mir uns
le la les un une des du de et est sont""".split())
# Words beside a name that say what kind of thing it is, or which one, without being part of its name: "the Leak Puck
# sensor", "der Leak Puck Sensor", "the new Air Pro". They never count as an unknown word in the name's place.
NEUTRAL = frozenset("""sensor sensors device devices product products item items unit units model models book
books novel novels title toy toys gadget kit set thing one ones version new old current latest original whole
entire produkt produkte gerät geräts geräte artikel buch buchs roman modell spielzeug sensoren neue neuen neuer
alte game games spiel spiele brettspiel figure figur figuren doll dolls puppe""".split())
# Small words inside a capitalised title ("The Mark of Athena", "Harry Potter and the …"): the capitalised word after
# one still belongs to the name as written.
_JOINERS = frozenset({"of", "and", "the", "de", "la", "le", "von", "van", "der", "du", "&"})
# A unit's words ("Zoll", "inch", "インチ"): after a number the row's name writes with a mark (9"), they are the name's.
_UNIT_NAMES = frozenset().union(*UNIT_WORDS.values()) | {"in", "inch", "zoll", "cm", "mm", "m", "ft", "feet", "oz"}
# A small number written as a word in a name and as digits in the question, or the reverse: "Slaughterhouse 5" is
# Slaughterhouse-Five, "Ocean's 11" Ocean's Eleven.
_NUMBER_WORDS = dict(enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                               "fifteen sixteen seventeen eighteen nineteen twenty".split()))
_AS_NUMBER = {**{str(n): w for n, w in _NUMBER_WORDS.items()}, **{w: str(n) for n, w in _NUMBER_WORDS.items()}}
_FUZZY_MIN = 5  # a word of five letters or more may be misspelt by one edit
_PREFIX_MIN = 4  # a word of four letters or more may stand for a longer one it starts
_CREDIT = {"exact": 1.0, "joined": 1.0, "fuzzy": 0.9, "prefix": 0.8, "translated": 0.75}
# A word people use for an attribute ("size", "price", "weight" in any language): after a name it is what is asked.
_FIELD_WORDS = frozenset(w for words in CONCEPTS.values() for w in words if " " not in w) | COUNT_WORDS
# A shortening of the row's own word counts as its word from this many letters ("vet" for "Veterinarian"): shorter
# than a word that names a row on its own (_PREFIX_MIN), since the row was already named by others.
_SHORT_FORM = 3
# A word of at most a few names (weight ≥ 0.75: 4 of 300, 2 of 20) names something; one of many may be a plain word.
_RARE_WORD = 0.75
# Two rows named by the same words of the question within this share of each other's weight are named alike: the
# credits of a plural or a shortening (0.8–0.9, _CREDIT) against an exact word are no evidence of which one is meant.
_SAME_WEIGHT = 0.8
MIN_COVER = 0.5  # the share of a name's distinctive weight a question must cover …
MIN_WEIGHT = 1.6  # … or this much weight in all (two rare words of a long catalogue name)
# Among a few rows a search found (``context``) a brand cannot always be told (one row's "Tallow" weighs in its
# name), so a name covered by two fifths of its weight is named there, under MIN_COVER.
_CONTEXT_COVER = 0.4
# A word of fewer letters has no plain plural or singular read for it ("is", "us"): no measurement is recorded.
_NUMBER_FORM_MIN = 3
# A catalogue's brand is a word in every name of a small table (fewer rows than _FEW_NAMES), in half the names of a
# larger one; a table of fewer than _BRAND_NAMES rows has none (of one name, every word would be). No measurement is
# recorded.
_FEW_NAMES = 10
_BRAND_NAMES = 3
# A word of this many letters or more may be two glued ones ("Stuhlset"), each piece of _GLUED_PIECE letters or more.
# Bounds, no measurement is recorded.
_GLUED_MIN = 6
_GLUED_PIECE = 3
# Rows matched by the same words are a tie unless the question writes the closer one's whole name: a cover of this
# or more (see ``read``).
_WHOLE_COVER = 0.99
# Rows named about as well kept beside the named one (Named.others, said as "also near"): a display bound, not tuned.
_OTHERS_KEPT = 3
# A word (or a row's matched words) weighing at most this names nothing: a word nearly every name carries weighs
# about 0. A floor above 0, no measurement is recorded.
_NAMING_WEIGHT = 0.05
# The nearest name by letter triples is said only from this share of shared triples (Jaccard): below it, nothing
# in the table is near. No measurement is recorded.
_CLOSEST_SHARE = 0.1
# Names are compared by their letter triples.
_GRAM = 3


@functools.cache
def _glossary() -> dict[str, frozenset[str]]:
    """A common noun of item names in German or Japanese → its English renderings (resources/names/)."""
    out: dict[str, set[str]] = defaultdict(set)
    for lang in ("de", "ja"):
        text = resources.files("biny.resources").joinpath(f"names/{lang}.txt").read_text("utf-8")
        for line in text.splitlines():
            if ":" in line and not line.lstrip().startswith("#"):
                word, said = line.split(":", 1)
                out[fold(word.strip())] |= {w.strip().casefold() for w in said.split(",") if w.strip()}
    return {w: frozenset(r) for w, r in out.items()}


def _cjk_renderings(question: str) -> list[tuple[int, int, frozenset[str]]]:
    """Words of the question's CJK runs with English renderings, where they stand: Japanese ones from the glossary
    (longest first, two characters or more), Chinese ones from the bundled dictionary (core/text/dictionary.py)."""
    folded = fold(question)
    if len(folded) != len(question):
        folded = question.casefold()
    out: list[tuple[int, int, frozenset[str]]] = []
    taken: list[tuple[int, int]] = []
    for w in sorted((w for w in _glossary() if len(w) >= 2 and HAS_CJK.search(w)), key=len, reverse=True):
        for m in re.finditer(re.escape(w), folded):
            if not any(s < m.end() and m.start() < e for s, e in taken):
                out.append((m.start(), m.end(), _glossary()[w]))
                taken.append((m.start(), m.end()))
    if _KANA.search(question) or not _HAN.search(question):
        return out
    from biny.core.text import dictionary
    from biny.core.text.question import Question

    for word in dictionary.chinese_words(Question.parse(question)):
        at = folded.find(word.word)
        if at >= 0 and word.renderings and not any(s < at + len(word.word) and at < e for s, e in taken):
            out.append((at, at + len(word.word), frozenset(word.renderings)))
    return out


def _with_renderings(question: str, qw: list[Word],
                     spans: list[tuple[int, int]]) -> tuple[list[Word], dict[str, frozenset[str]]]:
    """The question's words plus its CJK words with English renderings, each one word where it stands (卓球, 地球仪),
    and those renderings."""
    rendered: dict[str, frozenset[str]] = {}
    if not HAS_CJK.search(question):
        return qw, rendered
    for s, e, renders in _cjk_renderings(question):
        if not any(a <= s < b for a, b in spans):
            qw.append(Word(fold(question[s:e]), s, e, False))
            rendered[fold(question[s:e])] = renders
    qw.sort(key=lambda w: (w.start, -(w.end - w.start)))
    return qw, rendered


def _number_forms(w: str) -> tuple[str, ...]:
    """A Latin word's plain plural or singular ("sticker" / "stickers", "box" / "boxes")."""
    if len(w) < _NUMBER_FORM_MIN or not w.isalpha() or HAS_CJK.search(w):
        return ()
    if w.endswith("es"):
        return (w[:-1], w[:-2])
    if w.endswith("s"):
        return (w[:-1],)
    return (w + "s", w + "es")


def fold(text: str) -> str:
    """Case, accents and width folded: "Café", "CAFE" and "ｃａｆｅ" are one word."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    # Accents come off Latin letters only: a kana's voicing mark is part of it (「カテゴリ」 is not 「カテコリ」).
    return "".join("".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
                   if "\u00c0" <= ch < "\u0250" else ch for ch in text)


@dataclass(slots=True)
class Word:
    text: str  # folded
    start: int
    end: int
    capital: bool  # written with a capital (Latin script)


def words(text: str) -> list[Word]:
    """Folded words with their places; a run of CJK characters becomes its overlapping pairs (CJK has no spaces)."""
    out: list[Word] = []
    folded = fold(text)
    if len(folded) != len(text):  # folding changed the length (rare ligatures): positions from the original
        folded = text.casefold()
    for m in _TOKEN.finditer(folded):
        tok, s = m.group(0), m.start()
        if HAS_CJK.search(tok):
            if len(tok) == 1:
                out.append(Word(tok, s, s + 1, False))
            out += [Word(tok[i : i + 2], s + i, s + i + 2, False) for i in range(len(tok) - 1)]
        else:
            out.append(Word(tok, s, m.end(), text[s : s + 1].isupper()))
    return out


def _edits1(a: str, b: str) -> bool:
    """At most one insertion, deletion, substitution or swap of neighbours."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    if la > lb:
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :]


def _deletes(w: str) -> set[str]:
    return {w[:i] + w[i + 1 :] for i in range(len(w))} | {w}


@dataclass(slots=True)
class Named:
    """The row a question names, how well, and the rows named about as well."""

    row: int  # index into the names given
    cover: float  # share of the name's distinctive weight the question covers
    weight: float  # that weight
    start: int  # the question's words that named it
    end: int
    misspelt: list[tuple[str, str]] = field(default_factory=list)  # (written, the name's word)
    others: list[int] = field(default_factory=list)  # matched by the same words, less covered
    tied: list[int] = field(default_factory=list)  # matched exactly as well: the question does not say which


@dataclass(slots=True)
class Reading:
    named: Named | None
    # Why no row: "" (named one), "nothing" (no name's distinctive word), "tie" (several equally), "unknown word"
    # (the question writes a word in the name's place that no name has).
    why: str = ""
    unknown: str = ""  # the unknown words, as written
    tied: list[int] = field(default_factory=list)
    brand: bool = False  # the question writes a word most names carry (the catalogue's brand)
    # The words in the name's place name another thing than the closest row: a number or model code the row does
    # not carry ("Leak Cable 5 m" beside "Leak Cable 3 m"), or another row's word ("Gateway Mini" beside "Air
    # Mini"). ``unknown`` is then the name as the question writes it, whole.
    conflict: bool = False


class NameMatcher:
    """Built once over a table's names (or a context's row passages)."""

    def __init__(self, names: Sequence[str], stop: Iterable[str] = (), *, context: bool = False) -> None:
        """``context``: the names are a few rows a search found, not a whole table — a word most of them share may
        be what the question asks about ("gateway" in 3 of 5), so only a word all of them carry is a brand, and a
        name covered by two fifths of its weight is named (with one row, "Tallow" cannot be told to be a brand)."""
        self.min_cover = _CONTEXT_COVER if context else MIN_COVER
        self.stop = STOPWORDS | frozenset(stop)  # the catalogue's own nouns too ("book", "product")
        self.names = list(names)
        n = len(self.names)
        self.variants: list[list[frozenset[str]]] = []
        self.tails: list[frozenset[str]] = []
        self.mains: list[frozenset[str]] = []  # a name's words but its qualifier's
        postings: dict[str, set[int]] = defaultdict(set)
        for i, name in enumerate(self.names):
            toks = [w.text for w in words(name)]
            head = _HEAD_CUT.split(name, maxsplit=1)[0]
            vs = [frozenset(toks)]
            if head != name and words(head):
                vs.append(frozenset(w.text for w in words(head)))
            self.variants.append(vs)
            # Words only in a name's qualifier ("Yoshi's Crafted World - Nintendo Switch", "(Styles May Vary)") say
            # which edition or platform, not which thing: "the Nintendo Switch" is not Yoshi's game.
            main = {w.text for w in words(_TAIL.sub(" ", name))}
            self.tails.append(frozenset(t for t in toks if t not in main) if main else frozenset())
            self.mains.append(frozenset(main - STOPWORDS) or frozenset(main))
            for t in toks:
                postings[t].add(i)
        self.postings = dict(postings)
        self.weight = {t: 0.0 if t in STOPWORDS else math.log((n + 1) / len(rows)) / math.log(n + 1)
                       for t, rows in postings.items()}
        self.vocab = sorted(t for t in postings if not HAS_CJK.search(t))
        self.deletes: dict[str, set[str]] = defaultdict(set)
        for t in self.vocab:
            if len(t) >= _FUZZY_MIN - 1:
                for d in _deletes(t):
                    self.deletes[d].add(t)
        # Two of a name's words written as one ("leakpuck", "co2" → "co 2"): the joined form stands for both.
        self.joined: dict[str, tuple[str, str]] = {}
        for name in self.names:
            toks = [w.text for w in words(name) if not HAS_CJK.search(w.text)]
            for a, b in pairwise(toks):
                self.joined.setdefault(a + b, (a, b))
        # Words most names carry: a catalogue's brand ("Tallow" in 20 of 20). They name no row at all.
        share = 1.0 if n < _FEW_NAMES else 0.5
        self.brands = {t for t, rows in postings.items()
                       if n >= _BRAND_NAMES and len(rows) >= share * n and t not in STOPWORDS}
        if context:  # a few rows: only a first word they all open with is a brand ("Tallow Thermo", "Tallow …")
            firsts = {(words(name) or [Word("", 0, 0, False)])[0].text for name in self.names}
            self.brands = firsts - {""} if n >= 2 and len(firsts) == 1 else set()
        for t in self.brands:
            self.weight[t] = 0.0

    # ---- one question word against the names' words --------------------------------------------------------
    def _meets(self, w: str, rendered: dict[str, frozenset[str]] | None = None) -> list[tuple[str, str]]:
        """(the name's word, how) for one folded question word (``rendered``: the question's CJK words' English
        renderings)."""
        if w in self.postings:
            # and its plural or singular where another name writes that: "Eye Black Sticker" is the row of
            # "Eye Black Stickers", though other rows say "Sticker"
            return [(w, "exact"), *((f, "fuzzy") for f in _number_forms(w) if f in self.postings)]
        if _AS_NUMBER.get(w) in self.postings:
            return [(_AS_NUMBER[w], "joined")]  # the same number, written the other way
        out: list[tuple[str, str]] = []
        if w in self.joined:
            a, b = self.joined[w]
            out += [(a, "joined"), (b, "joined")]
        if HAS_CJK.search(w):
            return out or self._translated(w, rendered)
        if len(w) >= _FUZZY_MIN - 1:  # "glas" for "glass": one of the two words has five letters or more
            near = {t for d in _deletes(w) for t in self.deletes.get(d, ())}
            out += [(t, "fuzzy") for t in sorted(near) if _edits1(w, t) and len(t) >= _FUZZY_MIN]
        if len(w) >= _PREFIX_MIN and not out:
            i = bisect_left(self.vocab, w)
            while i < len(self.vocab) and self.vocab[i].startswith(w):
                if len(self.vocab[i]) > len(w):
                    out.append((self.vocab[i], "prefix"))
                i += 1
        return out or self._translated(w, rendered)

    def _translated(self, w: str, rendered: dict[str, frozenset[str]] | None = None) -> list[tuple[str, str]]:
        """A word the user wrote in their own language ("Panzer" for "Tank"), or two glued ("Stuhlset": Stuhl + set):
        the name's words among its renderings. Credited below a shortening; never names a row alone (``read``)."""
        said = set(_glossary().get(w, ())) | set((rendered or {}).get(w, ()))
        if not said and len(w) >= _GLUED_MIN and not HAS_CJK.search(w):
            for i in range(_GLUED_PIECE, len(w) - 2):
                a, b = w[:i], w[i:]
                if (a in _glossary() or a in self.postings) and (b in _glossary() or b in self.postings):
                    said |= set(_glossary().get(a, {a})) | set(_glossary().get(b, {b}))
                    break
        return [(t, "translated") for t in sorted(said) if t in self.postings]

    def read(self, question: str, explained: Iterable[tuple[int, int]] = ()) -> Reading:
        """The row the question names, if one. ``explained``: spans of the question that name a field or ask
        (they are no part of a name, and an unknown word beside a name is not the name's)."""
        spans = list(explained)
        qw, rendered = _with_renderings(question, [w for w in words(question)
                                                   if not any(s <= w.start < e for s, e in spans)], spans)
        met = self._met(qw, rendered)
        brand = any(w.text in self.brands for w in qw)
        scores = self._scores(met)
        ranked = self._ranked(scores)
        if not ranked:
            return Reading(None, "nothing", brand=brand, unknown=self._unknown(question, qw, met, None, None)[0])
        ranked, order = self._ordered(ranked, {w.text for w in qw})
        weight, cover, row = ranked[0]
        if cover < self.min_cover and weight < MIN_WEIGHT:
            return Reading(None, "nothing", brand=brand, unknown=self._unknown(question, qw, met, None, None)[0])
        used = sorted({qi for _, qi in scores[row].values()})
        if self._too_little(qw, met, scores[row], used, row):
            return Reading(None, "nothing", brand=brand)
        unknown, conflict = self._unknown(question, qw, met, used, row)
        if unknown:
            return Reading(None, "unknown word", unknown=unknown, brand=brand, conflict=conflict)
        same = self._alike(ranked, scores)
        tied = [r for r in same if abs(self._cover(r, scores[r]) - cover) < 1e-9 and order[r] == order[row]]
        if tied or (same and cover < _WHOLE_COVER):
            # Rows matched by the same words: the closer is named only when the question writes its whole name
            # ("the Motion" → Tallow Motion, beside Tallow Motion Outdoor); else which one is asked ("the Probe").
            return Reading(None, "tie", tied=[row, *same], brand=brand)
        misspelt = [(qw[qi].text, t) for t, (c, qi) in scores[row].items() if c < 1.0 and self.weight[t] > 0]
        return Reading(Named(row, cover, weight, qw[used[0]].start, qw[used[-1]].end, misspelt, same[:_OTHERS_KEPT]),
                       brand=brand)

    def _ranked(self, scores: dict[int, dict[str, tuple[float, int]]]) -> list[tuple[float, float, int]]:
        """(weight, cover, row) of every row the question's words meet (a qualifier's words credited less)."""
        ranked: list[tuple[float, float, int]] = []
        for row, got in scores.items():
            got = {t: ((c * _TAIL_CREDIT if t in self.tails[row] else c), qi) for t, (c, qi) in got.items()}
            scores[row] = got
            weight = sum(c * self.weight[t] for t, (c, _) in got.items())
            if weight > _NAMING_WEIGHT:
                ranked.append((weight, self._cover(row, got), row))
        return ranked

    def _ordered(self, ranked: list[tuple[float, float, int]],
                 said: set[str]) -> tuple[list[tuple[float, float, int]], dict[int, tuple[float, float, int]]]:
        """Best first: weight, cover, then the name the question writes more of, small words included ("Into the
        Wild" over "Wild: From Lost to Found …", whose head is "Wild"), then the name written whole but for its
        qualifier ("twilight" is "Twilight (Twilight, #1)" more than "Twilight: The Complete Illustrated Movie
        Companion", whose head alone it writes). Also each row's (literal share, main share, literal count)."""
        order = {}
        for _, _, r in ranked:
            share, count = max((len(v & said) / max(len(v), 1), len(v & said)) for v in self.variants[r])
            order[r] = (share, len(self.mains[r] & said) / max(len(self.mains[r]), 1), count)
        ranked = sorted(ranked, key=lambda x: (-x[0], -x[1], *(-o for o in order[x[2]]), len(self.names[x[2]]), x[2]))
        return ranked, order

    def _too_little(self, qw: list[Word], met: list[list[tuple[str, str]]], got: dict[str, tuple[float, int]],
                    used: list[int], row: int) -> bool:
        """Words that do not name a row on their own: rendered words only (they confirm a row the question names),
        numbers only (a year or a count), or one lower-case word that is not the row's whole name but its brand
        ("the motion" names Tallow Motion; "which book …" is no part of "The Book of Life", "before 1900" none of
        "Me Before You")."""
        if self._only_rendered(met, got):
            return True
        named_by = [qi for qi in used if self.weight[qw[qi].text] > _NAMING_WEIGHT] if all(
            qw[qi].text in self.weight for qi in used) else used
        if all(qw[qi].text.isdigit() for qi in named_by):
            return True
        whole = any(all(t in got or t in self.brands for t in v) for v in self.variants[row])
        return len(named_by) == 1 and not qw[named_by[0]].capital and not HAS_CJK.search(qw[named_by[0]].text) \
            and not whole

    def _alike(self, ranked: list[tuple[float, float, int]],
               scores: dict[int, dict[str, tuple[float, int]]]) -> list[int]:
        """Rows matched as well as the first: by the same weight, or by the very same words of the question with
        their forms read a little differently — "Huffy kids bike" writes "Kids Bikes" and "Kid Bike" alike."""
        weight, _, row = ranked[0]

        def naming_words(r: int) -> set[int]:
            return {qi for t, (_, qi) in scores[r].items() if self.weight[t] > _NAMING_WEIGHT}

        return [r for wt, _, r in ranked[1:] if abs(wt - weight) < 1e-9
                or (wt >= _SAME_WEIGHT * weight and naming_words(r) == naming_words(row))]

    def _only_rendered(self, met: list[list[tuple[str, str]]], got: dict[str, tuple[float, int]]) -> bool:
        """Is the row named only by words rendered from another language?"""
        by_rendering = {i for i, found in enumerate(met) if found and all(h == "translated" for _, h in found)}
        return bool(by_rendering) and all(qi in by_rendering for t, (_, qi) in got.items()
                                          if self.weight[t] > _NAMING_WEIGHT)

    def _met(self, qw: list[Word], rendered: dict[str, frozenset[str]] | None = None) -> list[list[tuple[str, str]]]:
        """Each question word → the names' words it meets; two question words written apart may be one name word."""
        met: list[list[tuple[str, str]]] = []
        for i, w in enumerate(qw):
            found = [] if w.text in self.stop or (len(w.text) < 2 and not HAS_CJK.search(w.text)) \
                else self._meets(w.text, rendered)
            if w.text.isdigit() and len(w.text) < 2 and _AS_NUMBER.get(w.text) in self.postings:
                found = [(_AS_NUMBER[w.text], "joined")]  # "Slaughterhouse 5": a lone digit only as a number word
            if i + 1 < len(qw) and not found and qw[i + 1].start - w.end <= 1:
                both = w.text + qw[i + 1].text
                if both in self.postings:
                    found = [(both, "joined")]
            met.append(found)
        return met

    def _scores(self, met: list[list[tuple[str, str]]]) -> dict[int, dict[str, tuple[float, int]]]:
        """Row → name word → (credit, question word): each name word's best meeting."""
        scores: dict[int, dict[str, tuple[float, int]]] = defaultdict(dict)
        for qi, found in enumerate(met):
            for t, how in found:
                for row in self.postings.get(t, ()):
                    credit = _CREDIT[how]
                    if scores[row].get(t, (0.0, 0))[0] < credit:
                        scores[row][t] = (credit, qi)
        return scores

    def _cover(self, row: int, got: dict[str, tuple[float, int]]) -> float:
        best = 0.0
        for v in self.variants[row]:
            total = sum(self.weight[t] for t in v)
            if total > 0:
                best = max(best, sum(c * self.weight[t] for t, (c, _) in got.items() if t in v) / total)
        return best

    def _unknown(self, question: str, qw: list[Word], met: list[list[tuple[str, str]]], used: list[int] | None,
                 row: int | None) -> tuple[str, bool]:
        """Words written in a name's place that are not the row's: the capitalised words run together with the
        matched ones ("Tallow Smoke Alarm"), the word right before a lower-case name ("temperature probe"), and a
        number or code right after the name ("Thermo Probe 2"). Returns them, and whether they conflict: a number
        the row lacks or another row's word (then the whole name as written is returned)."""
        if used is None or row is None:  # no row matched: the capitalised run from the brand, if the question has it
            return self._brand_run(question, qw, met), False
        beside = _Beside(self, question, qw, met, self.variants[row][0], any(qw[i].capital for i in used))
        first, last = used[0], used[-1]
        out = [*beside.before(first), *beside.after(last), *beside.inside(first, last)]
        if any(i in out for i in beside.conflicts):
            span = sorted({*out, *used})
            return question[qw[span[0]].start : qw[span[-1]].end], True
        words_out = [question[qw[i].start : qw[i].end] for i in sorted(out, key=lambda k: (k > last, k))]
        if out and qw[used[0]].text in self.brands:  # "Tallow Smoke Alarm", as the question writes it
            words_out.insert(0, question[qw[used[0]].start : qw[used[0]].end])
        return " ".join(words_out), False

    def _brand_run(self, question: str, qw: list[Word], met: list[list[tuple[str, str]]]) -> str:
        """The capitalised run from the catalogue's brand when it holds a word no name has ("Tallow Smoke Alarm")."""
        at = next((i for i, w in enumerate(qw) if w.text in self.brands and w.capital), None)
        if at is None:
            return ""
        end = at
        while end + 1 < len(qw) and qw[end + 1].capital and qw[end + 1].text not in STOPWORDS \
                and qw[end + 1].start - qw[end].end <= 2:
            end += 1
        if end == at or all(met[i] for i in range(at + 1, end + 1)):
            return ""
        return question[qw[at].start : qw[end].end]  # "Tallow Smoke Alarm", "Tallow Leak Pipe"

    def closest(self, text: str) -> int | None:
        """The name nearest to ``text`` by shared letter triples, for saying what the table has instead."""
        grams = _grams(text)
        if not grams or not self.names:
            return None
        scores = [_jaccard(grams, _grams(n)) for n in self.names]
        best = max(range(len(self.names)), key=lambda i: (scores[i], -i))
        return best if scores[best] >= _CLOSEST_SHARE else None


class _Beside:
    """The question's words around the words that named a row (NameMatcher._unknown): which of them say another
    thing than the row, and which conflict with it (a number it lacks, another row's word)."""

    def __init__(self, matcher: NameMatcher, question: str, qw: list[Word], met: list[list[tuple[str, str]]],
                 own: frozenset[str], capital: bool) -> None:
        self.m, self.question, self.qw, self.met, self.own = matcher, question, qw, met, own
        self.capital = capital  # the name is written with capitals
        self.conflicts: list[int] = []
        self._language: list[str | None] = []  # the question's, parsed on first need

    def everyday(self, w: str) -> bool:
        """A word of the question's own language that no name has: "Wippe", "Kostüm" beside an English name."""
        if not self._language:
            from biny.core.text.question import Question

            said = Question.parse(self.question).language
            # Unsure for the whole (mostly an English name): the words no name has tell it.
            self._language.append(said or language_beside(
                [self.question[x.start : x.end] for x in words(self.question)
                 if x.text not in self.m.postings and x.text not in self.m.stop]))
        return own_language_word(w, self._language[0])

    def transparent(self, i: int) -> bool:
        """The question's own noun for the thing ("die … Wippe", "das … Kostüm"): no part of the name, and no end of
        it either."""
        if self.met[i] or self.qw[i].text in _UNIT_NAMES:  # a unit is the number's ("12 Zoll"), read as before
            return False
        return self.everyday(self.question[self.qw[i].start : self.qw[i].end].casefold())  # as written: "Kostüm"

    def foreign(self, i: int) -> bool:
        """Not this row's word: no name has it, or only other rows' names do."""
        qw, met, own = self.qw, self.met, self.own
        w = qw[i].text
        if w in own or w in self.m.brands:
            return False
        if len(w) >= _SHORT_FORM and w.isalpha() and any(o.startswith(w) for o in own):
            return False  # this row's word shortened: "vet" for "Veterinarian"
        if i > 0 and qw[i - 1].text in own and qw[i - 1].text.isdigit() and w in _UNIT_NAMES:
            return False  # "9 Zoll Soccer Ball" is the row written 9" SOCCER BALL: the number's unit, said
        other = bool(met[i]) and not any(t in own for t, _ in met[i])
        if other or (any(ch.isdigit() for ch in w) and not met[i]):
            self.conflicts.append(i)
        return not met[i] or other

    def others_word(self, k: int) -> bool:
        """Only other rows' names have it, and few of them: "city of fallen angels" is not the row "Fallen"; a word
        many names carry, or an attribute's word ("size"), may be the question's own."""
        met = self.met[k]
        return bool(met) and not any(t in self.own for t, _ in met) and self.qw[k].text not in _FIELD_WORDS \
            and max(self.m.weight.get(t, 0.0) for t, _ in met) >= _RARE_WORD

    def before(self, first: int) -> list[int]:
        """Capitalised words run together before a capitalised name; the one word before a lower-case name."""
        qw, i = self.qw, first - 1
        out: list[int] = []
        while i >= 0 and qw[i].text not in STOPWORDS and self.foreign(i) and qw[i + 1].start - qw[i].end <= 2:
            if self.transparent(i):
                i -= 1
                continue
            if self.capital and not qw[i].capital:
                break
            if HAS_CJK.search(qw[i].text) or qw[i].text in NEUTRAL:
                break
            if self.capital and not self.question[: qw[i].start].strip(" ¿¡\"'“‘「"):
                break  # the question's first word is capitalised because it comes first
            out.insert(0, i)
            if not self.capital:
                break  # a lower-case name: only the word right before it modifies it
            i -= 1
        return out

    def after(self, last: int) -> list[int]:
        """Capitalised words after a capitalised name ("Tallow Smoke Alarm"), a number or code after any name
        ("leak cable 5 m"), a rare word of other names after a lower-case one ("fallen angels")."""
        qw, i = self.qw, last + 1
        out: list[int] = []
        if self.capital and i + 1 < len(qw) and qw[i].text in _JOINERS and qw[i + 1].capital \
                and qw[i + 1].start - qw[i].end <= 2 and qw[i + 1].text not in STOPWORDS and self.foreign(i + 1):
            i += 1  # a title's small word between capitalised ones: "The Mark of Athena" is not "Marked"
        while i < len(qw) and qw[i].text not in STOPWORDS and qw[i].text not in NEUTRAL \
                and qw[i].start - qw[i - 1].end <= 2 and not HAS_CJK.search(qw[i].text) \
                and ((self.capital and qw[i].capital) or any(ch.isdigit() for ch in qw[i].text)
                     or (not self.capital and self.others_word(i))) and self.foreign(i):
            if not self.transparent(i):
                out.append(i)
            i += 1
        return out

    def inside(self, first: int, last: int) -> list[int]:
        """A word inside the name that is not the row's ("Gateway Mini"); in a name written in lower case any such
        word ("pokemon tcg burning shadows elite trainer box" is not the Mega Camerupt collection box)."""
        qw = self.qw
        return [j for j in range(first + 1, last) if qw[j].text not in STOPWORDS and qw[j].text not in NEUTRAL
                and (qw[j].capital or any(ch.isdigit() for ch in qw[j].text) or not self.capital)
                and not HAS_CJK.search(qw[j].text) and self.foreign(j) and not self.transparent(j)]


def _grams(text: str) -> set[str]:
    t = " " + " ".join(w.text for w in words(text)) + " "
    return {t[i : i + _GRAM] for i in range(len(t) - 2)}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
