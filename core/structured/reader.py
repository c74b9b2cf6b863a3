"""A question read against the index's vocabulary (issue 56): the row it names (by title, key or code, or the way
people name it: issue 64), the fields, qualifiers, values and numbers it mentions, and the words nothing explains.

``Reader.read`` reads a question once into an ``Asked``; ``route`` decides the call from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from biny.core.i18n import Said
from biny.core.structured import lexicon as lx
from biny.core.structured.naming import CJK, HAS_CJK, NEUTRAL, Reading
from biny.core.structured.tools import Condition
from biny.core.structured.vocabulary import ASKING, Vocabulary, key, tokens
from biny.core.text.common_words import own_language_word
from biny.core.text.question import sentence_language

CJK_RUN = re.compile(rf"[{CJK}]+")
# A title in quotes, each opening mark with its own closing one: “Skateboard 28" x 8"” keeps its inch marks.
_QUOTED = re.compile(r'“([^”]{2,400})”|「([^」]{2,400})」|『([^』]{2,400})』|《([^》]{2,400})》|"([^"]{2,400})"'
                     r"|‘([^’]{2,400})’")
_MAX_NGRAM = 64  # product names run to 40 words and more
# A named row's span widens over its own words beside it up to this many words each side: a bound, not tuned.
_WIDEN_WORDS = 5
# One word names an item only from this many characters (and written as a name); several words from _TITLE_CHARS.
# No measurement is recorded.
_TITLE_WORD_CHARS = 4
_TITLE_CHARS = 5
# A field value written in the question is looked for in runs of up to this many words: a bound on the work.
_VALUE_WORDS = 8
# "Within a few characters": how far a numbered field's number may stand from its kind's word ("5-star", "13 位
# ISBN"), and a field's word from another's translation (``_split``). No measurement is recorded.
_BESIDE_CHARS = 12
# What a numbered field named by its kind's word and its number scores: above a field's own name (3.0 in
# vocabulary.py). No measurement is recorded.
_NUMBERED_SCORE = 4.0
# A whole number in this range with a comparison is read as a year (1000 is the range's start).
_LATEST_YEAR = 2100
# Characters before and after a number searched for its comparison's words ("before", "more than", "以后").
_OP_BEFORE = 30
_OP_AFTER = 12
# Characters of the question quoted around a number in the evidence: a display bound, not tuned.
_QUOTED_BEFORE = 12
_QUOTED_AFTER = 6
# jieba's log level: above logging.CRITICAL (50), so its loading messages are never printed.
_JIEBA_QUIET = 60
# A German compound of this many letters or more is read by its head: an ending of four letters or more (the head
# starts before the last _HEAD_SPARE letters) after at least two letters. No measurement is recorded.
_COMPOUND_CHARS = 7
_HEAD_SPARE = 3
# A run of capitalised words (Latin script): a name, a title, a place.
# Latin-1's letters too: "der Türkontakt DC-4" names "Türkontakt", not "T" (issue 55).
_CAP = r"[A-ZÀ-ÖØ-Þ][A-Za-zÀ-ÖØ-öø-ÿ0-9'’.&-]*"
_NAME = re.compile(rf"(?<![A-Za-zÀ-ÖØ-öø-ÿ0-9]){_CAP}(?:\s+(?:of|the|and|de|von|van|&)?\s*{_CAP})*")
# A number as digits, a number word ("five", "fünf") or a CJK numeral (五星): see lexicon.NUMBER_WORDS.
_NUMBER = re.compile(r"[一二三四五六七八九十两]|(?<!\d)\d{1,2}(?!\d)|(?<![^\W\d_])[a-zäöüß]+(?![^\W\d_])")
_NUMBER_GAP = re.compile(r"[\s\-‐–_]*(?:digits?|stellige?n?|位|桁)?[\s\-‐–_]*")
# A unit's word names its field only as the thing asked for: "how many meters", "wie viele Monate", 几个月, 何メートル
# ("the Flow Meter" names a row, not the range in metres).
_UNIT_ASKED = re.compile(
    r"(?:how many|how much|how far|how long|wie viele|wie viel|wie weit|wie lange|多少|几个?|何)\s*$")
QUALIFIER = 0.25  # what a qualifier adds to a field named alike with others ("all editions": work_ratings_count)
# A code as people write one: Latin letters and digits, both, with dashes or dots inside ("TA-210", "b07xk9", "TV-7").
_CODE = re.compile(r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9.-]*[0-9])(?=[A-Za-z0-9.-]*[A-Za-z])"
                   r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?![A-Za-z0-9-])")


@dataclass(slots=True)
class Mention:
    field: str
    start: int
    end: int
    score: float
    asking: bool = False  # named only by a question's form ("how much", "wie viel"), not by a word for the field


@dataclass(slots=True)
class Span:
    start: int
    end: int

    def overlaps(self, s: int, e: int) -> bool:
        return s < self.end and e > self.start


@dataclass(slots=True)
class Asked:
    """A question as the router reads it, once (issue 56): what each routing step starts from."""

    question: str
    qf: str  # casefolded, same length as the question
    ev: list[Said]  # the evidence so far, appended by each step
    ids: list[str]  # the named item's row, when one is named
    item_words: str
    reading: Reading | None  # how a name written the way people write it was read (issue 64)
    taken: list[Span]  # spans already explained
    mentions: list[Mention]  # fields named
    counting: re.Match[str] | None
    qualifiers: list[Mention]  # words that prefer one of the fields named alike ("all editions": work_…)


class Reader:
    """Reads questions against one index's vocabulary; holds nothing of its own but the vocabulary."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary

    def read(self, question: str) -> Asked:
        """The question read once: the item it names (as written, or shortened, misspelt: issue 64), the values
        and fields it mentions, its counting words."""
        # Same length as the question, so spans map back: "book_id" reads as the words "book id".
        qf = question.casefold().replace("’", "'").replace("_", " ")
        ids, item_span, item_words = self._item(question, qf)
        if item_span is not None and self._value_covers(qf, item_span):
            ids, item_span, item_words = [], None, ""  # "Stephen King" is an author, not the book "King"
        reading: Reading | None = None
        longer, made = self._head_of_longer(question, qf, item_span) if ids and item_span is not None else (False, None)
        if longer:
            ids, item_span, item_words = [], None, ""
        if not ids:  # named the way people name it: shortened, brand dropped, misspelt (issue 64)
            reading = made or self._reading(question, qf)  # read once: the head's check may have read it
            named = reading.named
            if named is not None and not self._value_covers(qf, Span(named.start, named.end)):
                ids, item_span = [self.vocabulary.name_ids[named.row]], self._whole_name(qf, named.start, named.end,
                                                                               self.vocabulary.names.names[named.row])
                item_words = question[item_span.start : item_span.end]
        taken = [item_span] if item_span else []
        # A value outweighs a field's name inside it: "母婴用品类" is the category 母婴用品, not the word 品类.
        values = [Span(a, b) for a, b, _ in self._value_spans(qf, taken)]
        mentions = [m for m in self._mentions(qf, taken)
                    if not any(v.overlaps(m.start, m.end) and v.end - v.start > m.end - m.start for v in values)]
        qualifiers = _qualifiers(self.vocabulary.qualifier_surfaces, qf, taken)
        # Words inside a qualifier are its own: "editions" in "across all editions" asks no count of editions.
        mentions = [m for m in mentions if not any(
            x.start <= m.start and m.end <= x.end and x.end - x.start > m.end - m.start for x in qualifiers)]
        return Asked(question, qf, [], ids, item_words, reading, taken, mentions, lx.COUNT_QUESTION.search(qf),
                      qualifiers)

    @staticmethod
    def _whole_name(qf: str, start: int, end: int, name: str) -> Span:
        """The named row's span widened over the row's own words beside it that were read as a field's words
        ("Name of the Wind": "name" is a word for the title, and the first word of this row's name)."""
        own = set(key(name).split())
        toks = tokens(qf)
        inside = [i for i, (_, s, e) in enumerate(toks) if s >= start and e <= end]
        if not inside:
            return Span(start, end)
        lo, hi = inside[0], inside[-1]
        while lo > 0 and inside[0] - lo < _WIDEN_WORDS and toks[lo - 1][0] in own:
            lo -= 1
        while hi + 1 < len(toks) and hi - inside[-1] < _WIDEN_WORDS and toks[hi + 1][0] in own:
            hi += 1
        return Span(min(start, toks[lo][1]), max(end, toks[hi][2]))

    def _reading(self, question: str, qf: str) -> Reading:
        """The row the question names the way people name it (naming.py), its fields' words set aside."""
        asked = [(m.start, m.end)
                 for m in [*self._mentions(qf, []), *_qualifiers(self.vocabulary.qualifier_surfaces, qf, [])]]
        return self.vocabulary.names.read(question, asked)

    def _head_of_longer(self, question: str, qf: str, span: Span) -> tuple[bool, Reading | None]:
        """A title's head ("Twilight", "Pokemon TCG", "Funko Pop! Keychain" — the words before a colon or bracket)
        that the question writes inside a longer name: the longer name decides — another row ("the Twilight
        illustrated movie companion") or none ("pokemon tcg burning shadows elite trainer box"). A title as written,
        a key or a quoted title stands. With the verdict, the reading of the question it made (None: none made)."""
        k = key(question[span.start : span.end])
        if k not in self.vocabulary.titles or self.vocabulary.exact_titles.get(k) or _QUOTED.search(question):
            return False, None
        reading = self._reading(question, qf)
        if reading.named is not None:
            return (reading.named.start <= span.start and span.end <= reading.named.end
                    and reading.named.end - reading.named.start > span.end - span.start
                    and self.vocabulary.name_ids[reading.named.row] not in self.vocabulary.titles[k][:1]), reading
        return reading.why == "unknown word", reading

    def _item(self, question: str, qf: str) -> tuple[list[str], Span | None, str]:
        """The row the question names by its title or its key: (doc_ids, span, words)."""
        keyed = self._keyed_item(question, qf)
        if keyed[0]:
            return keyed
        for m in _QUOTED.finditer(question):
            quoted = next(g for g in m.groups() if g is not None)
            ids = self.vocabulary.titles.get(key(quoted))
            if ids:
                return ids, Span(m.start(), m.end()), quoted
        toks = tokens(qf)
        best: tuple[int, int, int] | None = None
        for i in range(len(toks)):
            for j in range(min(len(toks), i + _MAX_NGRAM), i, -1):
                k = " ".join(t for t, _, _ in toks[i:j])
                if k in self.vocabulary.titles and self._plausible_title(k, question, toks[i][1], j - i,
                                                                  lambda b: _counted(self.vocabulary.surfaces, b)):
                    if best is None or toks[j - 1][2] - toks[i][1] > best[1] - best[0]:
                        best = (toks[i][1], toks[j - 1][2], 0)
                    break
        for k in self.vocabulary.cjk_titles:
            s = qf.find(k)
            if s >= 0 and len(k) >= 2 and (best is None or len(k) > best[1] - best[0]):
                best = (s, s + len(k), 1)
        if best is None or self._inside_longer_name(question, best[0], best[1]):
            return [], None, ""
        words = question[best[0] : best[1]]
        return self.vocabulary.titles[key(words)], Span(best[0], best[1]), words

    def _keyed_item(self, question: str, qf: str) -> tuple[list[str], Span | None, str]:
        """An item named by its key field and value: "PEP 484", "PEP 8的状态", "model number 55324"."""
        for name, by_value in self.vocabulary.keyed.items():
            surface = re.escape(key(name)).replace(r"\ ", r"[\s_-]*")
            # The value stops at a CJK character: "PEP 647的状态" names 647.
            value_rx = rf"((?:(?![{CJK}])[^\W_])(?:(?![{CJK}])[\w./-])*)"
            rx = rf"(?<![^\W_]){surface}\s*(?:#|no\.?|number)?\s*[:：]?\s*{value_rx}"
            for m in re.finditer(rx, qf):
                value = m.group(1).rstrip(".")
                ids = by_value.get(key(value))
                if ids:
                    return ids, Span(m.start(), m.start(1) + len(value)), question[m.start() : m.start(1) + len(value)]
        return self._bare_code(question, qf)

    def _bare_code(self, question: str, qf: str) -> tuple[list[str], Span | None, str]:
        """An item named by its code alone — "how much is TA-210", "TV-7 的价格": a token of letters and digits that is
        exactly one row's value of an identifier field. A bare number never is (a year, a count, a price)."""
        for m in _CODE.finditer(qf):
            for name, by_value in self.vocabulary.keyed.items():
                f = self.vocabulary.spec.get(name)
                ids = by_value.get(key(m.group(0))) if f is not None and f.type == "identifier" else None
                if ids and len(ids) == 1:
                    return ids, Span(m.start(), m.end()), question[m.start() : m.end()]
        return [], None, ""

    def _inside_longer_name(self, question: str, start: int, end: int) -> bool:
        """A title found inside a longer capitalised name: "Four: A Divergent Collection" is not "Divergent". Words
        for a field ("Twilight Author") or for the kind of thing ("Twilight Book") are no part of a name."""
        for m in _NAME.finditer(question):
            if m.start() <= start and end <= m.end() and (m.start(), m.end()) != (start, end):
                beside = question[m.start() : start].split() + question[end : m.end()].split()
                extra = [w for w in beside if (k := key(w)) and k not in lx.STOPWORDS
                         and k not in self.vocabulary.surfaces and k not in NEUTRAL]
                return bool(extra)
        return False

    @staticmethod
    def _plausible_title(k: str, question: str, start: int, n_words: int,
                         counted: Callable[[str], bool] | None = None) -> bool:
        if k in lx.STOPWORDS or all(w in lx.STOPWORDS for w in k.split()):
            return False
        if n_words == 1 and k.isdigit():
            # A number is a year or a count unless it is what a field is asked "of" ("the image URL of 1984", "how
            # many editions of 1984": a count field's words, not "how many books of 1984").
            return len(k) >= 2 and bool(re.search(r"\b(?:of|for)\s+$", question[:start], re.I)) \
                and (not lx.COUNT_QUESTION.search(question) or (counted is not None and counted(question[:start]))) \
                and not re.match(r"\s*(?:books?|items?|products?|\w+s)\b", question[start + len(k):], re.I)
        if n_words == 1:  # one word names an item only when written as a name ("Twilight", not "twilight")
            return len(k) >= _TITLE_WORD_CHARS and question[start : start + 1].isupper()
        return len(k) >= _TITLE_CHARS

    def _value_covers(self, qf: str, span: Span) -> bool:
        """Does a field value cover more of the question than the title match does?"""
        toks = tokens(qf)
        for i in range(len(toks)):
            for j in range(min(len(toks), i + _VALUE_WORDS), i, -1):
                s, e = toks[i][1], toks[j - 1][2]
                if span.overlaps(s, e) and e - s > span.end - span.start \
                        and " ".join(t for t, _, _ in toks[i:j]) in self.vocabulary.values:
                    return True
        return False

    def _mentions(self, qf: str, taken: list[Span]) -> list[Mention]:
        out: list[Mention] = []
        # For Latin-script surfaces a CJK neighbour is a word boundary ("个PEP的"): same length, so
        # positions still map to the question.
        latin = CJK_RUN.sub(lambda m: " " * len(m.group(0)), qf)
        many = lx.MANY_QUESTION.search(qf) is not None  # "how many people rated …": the count is asked
        for surface, owners in self.vocabulary.surfaces.items():
            for s in starts(surface, qf, latin):
                e = s + len(surface)
                if any(t.overlaps(s, e) for t in taken) or (surface in self.vocabulary.unit_words
                                                             and not _UNIT_ASKED.search(qf[:s])):
                    continue
                plural = many or (surface.endswith("s") and not surface.endswith("ss")) or bool(
                    re.search(r"number of\s+$", qf[:s])) or bool(re.match(r"\s*(?:人数|数量|次数|数|个数)", qf[e:]))
                asking = bool(ASKING.match(surface))
                for name, score, countish in owners:
                    out.append(Mention(name, s, e, score + (0.5 if countish == plural else 0.0), asking))
        out += [m for m in self._numbered(qf, latin) if not any(t.overlaps(m.start, m.end) for t in taken)]
        out += [m for m in _split(self.vocabulary.split, qf, latin)
                if not any(t.overlaps(m.start, m.end) for t in taken)]
        # German compounds in a German question — or, where the question is mostly an English name and too short to
        # tell, a compound that is itself German ("Versandgewicht Delta Children SpongeBob Kleinkindbett").
        german = sentence_language(qf) == "de"
        out += _compounds(self.vocabulary.surfaces, qf, taken, out, many, german)
        return out

    def _numbered(self, qf: str, latin: str) -> list[Mention]:
        """A numbered field named by its kind's word with its number beside it (within a few characters)."""
        out: list[Mention] = []
        for name, kinds, number, _ in self.vocabulary.numbered:
            for surface in kinds:
                for s in starts(surface, qf, latin):
                    e = s + len(surface)
                    lo, hi = max(0, s - _BESIDE_CHARS), min(len(qf), e + _BESIDE_CHARS)
                    for m in _NUMBER.finditer(qf, lo, hi):
                        said = m.group(0)
                        value = int(said) if said.isdigit() else lx.NUMBER_WORDS.get(said)
                        gap = qf[m.end() : s] if m.end() <= s else qf[e : m.start()]
                        # Beside each other: "5-star", "ISBN-13", "13-digit ISBN", "13 位 ISBN", 星2 — not "1 million
                        # ratings" (a magnitude) nor "Hunger Games 1 rating" by way of other words.
                        if value == number and _NUMBER_GAP.fullmatch(gap):
                            out.append(Mention(name, min(s, m.start()), max(e, m.end()), _NUMBERED_SCORE))
        return out

    def _value_spans(self, qf: str, taken: list[Span]) -> list[tuple[int, int, str]]:
        """Where the question writes a value of a filterable field: (start, end, value key), longest first."""
        toks = tokens(qf)
        found: list[tuple[int, int, str]] = []
        i = 0
        while i < len(toks):
            hit = None
            for j in range(min(len(toks), i + _VALUE_WORDS), i, -1):
                k = " ".join(t for t, _, _ in toks[i:j])
                s, e = toks[i][1], toks[j - 1][2]
                if k in self.vocabulary.values and not any(t.overlaps(s, e) for t in taken):
                    hit = (s, e, k, j)
                    break
            if hit:
                start, end, value_key, i = hit
                found.append((start, end, value_key))
            else:
                i += 1
        for k in sorted(self.vocabulary.cjk_values, key=len, reverse=True):
            s = qf.find(k)
            if s >= 0 and not any(t.overlaps(s, s + len(k)) for t in taken) \
                    and not any(a <= s < b for a, b, _ in found):
                found.append((s, s + len(k), k))
        return found

    def value_conditions(self, question: str, qf: str, taken: list[Span],
                          evidence: list[Said]) -> list[Condition]:
        conds: list[Condition] = []
        for s, e, k in self._value_spans(qf, taken):
            fname, value = self.vocabulary.values[k][0]
            f = self.vocabulary.spec.get(fname)
            assert f is not None
            if isinstance(value, list):
                conds.append(Condition(fname, "in", value))
            else:
                conds.append(Condition(fname, "in" if f.type == "list" else "=", [value]))
            taken.append(Span(s, e))
            evidence.append(f"value {question[s:e]!r} → {fname}")
        return conds

    def _number_field(self, pos: int, unit: str, op: str, value: float, mentions: list[Mention]) -> str | None:
        numeric = [m for m in mentions if (f := self.vocabulary.spec.get(m.field)) is not None and f.numeric]
        # A unit says which kind of field: "2005年以前创建的PEP" compares a date, not the number named "PEP".
        kinds = {"money"} if unit and unit not in {"年"} and not unit.lower().startswith("star") else \
            {"year", "date"} if unit == "年" else set()
        if kinds and any(self.vocabulary.spec.get(m.field).type in kinds for m in numeric):  # type: ignore[union-attr]
            numeric = [m for m in numeric if self.vocabulary.spec.get(m.field).type in kinds]  # type: ignore[union-attr]
        if numeric:
            best = min(numeric, key=lambda m: (min(abs(m.start - pos), abs(m.end - pos)), -m.score))
            return best.field
        fields = [f for f in self.vocabulary.spec.fields if f.numeric]
        money = unit and unit.lower() not in {"年", "star", "stars"}
        yearish = unit == "年" or (value == int(value) and 1000 <= value <= _LATEST_YEAR
                                  and op in {"<", ">", "<=", ">=", "="})
        if money:
            fields = [f for f in fields if f.type == "money"]
        elif yearish:
            fields = [f for f in fields if f.type in {"year", "date"}]
        elif unit.lower().startswith("star"):
            fields = [f for f in fields if key(f.name) in {"rating", "average rating", "stars"}]
        else:
            return None
        return fields[0].name if fields else None

    def number_conditions(self, question: str, qf: str, taken: list[Span], mentions: list[Mention],
                           evidence: list[Said]) -> list[Condition]:
        conds: list[Condition] = []
        used: list[Span] = []
        for m in lx.BETWEEN.finditer(qf):
            s, e = m.start(), m.end()
            if any(t.overlaps(s, e) for t in taken) or not re.search(r"between|from|之间|间|到|至|~", m.group(0)):
                continue
            a, b = (float(re.sub(r"[^\d.]", "", m.group(g))) for g in ("a", "b"))
            unit = "$" if re.search(r"[$€£¥￥元]", m.group(0)) else ("年" if "年" in m.group(0) else "")
            f = self._number_field(s, unit, "=", a, mentions)
            if f:
                conds.append(Condition(f, "between", [a, b]))
                used.append(Span(s, e))
                evidence.append(f"{question[s:e].strip()!r} → {f} between {a:g} and {b:g}")
        for m in lx.NUMBER.finditer(qf):
            s, e = m.start("cur") if m.group("cur") else m.start("n"), m.end()
            glued = s > 0 and qf[s - 1].isascii() and qf[s - 1].isalnum() and not m.group("cur")  # "B12", "x2"
            if glued or any(t.overlaps(s, e) for t in [*taken, *used]):
                continue
            value = float(m.group("n").replace(",", "")) * lx.MAGNITUDE.get((m.group("mag") or "").lower(), 1.0)
            unit = m.group("cur") or m.group("unit") or ""
            before, after = qf[max(0, s - _OP_BEFORE) : s], qf[e : e + _OP_AFTER]
            op = next((o for rx, o in lx.AFTER_NUMBER if rx.search(after)), None)
            if op is None:
                op = next((o for rx, o in lx.BEFORE_NUMBER if rx.search(before)), None)
            if op is None and unit == "年":
                op = "="
            if op is None or (op == "=" and not (value == int(value) and 1000 <= value <= _LATEST_YEAR)
                              and not lx.YEAR_HINT.search(before + after)):
                continue
            f = self._number_field(s, unit, op, value, mentions)
            if f:
                conds.append(Condition(f, op, value))
                quoted = question[max(0, s - _QUOTED_BEFORE) : e + _QUOTED_AFTER].strip()
                evidence.append(f"{quoted!r} → {f} {op} {value:g}")
        return conds

    @staticmethod
    def unexplained_words(qf: str, taken: list[Span]) -> list[str]:
        """Content words of a counting question that no field, value, item noun or count word explains."""
        import jieba

        jieba.setLogLevel(_JIEBA_QUIET)
        out = []
        pos = 0
        for word in jieba.cut(qf):
            start, pos = pos, pos + len(word)
            w = word.strip(" ?？!！.。,，:：·'\"")
            if not w or any(t.overlaps(start, pos) for t in taken) or lx.ITEM_NOUNS.fullmatch(w):
                continue
            if w in lx.STOPWORDS or w in lx.BARE_COUNT_WORDS or not any(ch.isalnum() for ch in w):
                continue
            if HAS_CJK.search(w) and all(ch in lx.EXPLAINED_CHARS for ch in w):
                continue
            out.append(w)
        return out

    @staticmethod
    def unexplained_names(question: str, taken: list[Span]) -> list[str]:
        """Capitalised names the rules matched to nothing ("books by Stephen King" when no author is).

        Counting or listing over the whole table while ignoring a name the user gave would
        answer a different question; such questions go to retrieval instead.
        """
        out = []
        for m in _NAME.finditer(question):
            words = [w for w in m.group(0).split()
                     if (k := w.casefold().strip(".,'’")) not in lx.STOPWORDS and k not in lx.PRONOUNS]
            if words and any(t.overlaps(m.start(), m.end()) for t in taken):
                # A value inside a longer name: "the Rayne Longboards Fury" is a product no row names, not the
                # category Longboards — its other capitalised words are still unexplained.
                rest = [w for w in re.finditer(r"\S+", m.group(0)) if w.group(0).casefold().strip(".,'’")
                        not in lx.STOPWORDS and not any(t.overlaps(m.start() + w.start(), m.start() + w.end())
                                                        for t in taken)]
                if rest and m.start() > 0:
                    out.append(m.group(0))
                continue
            if not words:
                continue
            if m.start() == 0 and len(m.group(0).split()) == 1:
                continue  # the sentence's first word
            out.append(m.group(0))
        return out

    def lacking_word(self, qf: str, taken: list[Span]) -> str:
        """The question's word for an attribute no field holds ("weight", "颜色"), or ""."""
        span = self.lacking_span(qf, taken)
        return qf[span.start : span.end] if span else ""

    def lacking_span(self, qf: str, taken: list[Span]) -> Span | None:
        latin = CJK_RUN.sub(lambda m: " " * len(m.group(0)), qf)
        for w in sorted(self.vocabulary.lacking, key=lambda x: (-len(x), x)):  # longest first; ties by text, not hash
            if HAS_CJK.search(w):
                at = qf.find(w)
            else:
                m = re.search(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])", latin)
                at = m.start() if m else -1
            if at >= 0 and not any(s.overlaps(at, at + len(w)) for s in taken):
                return Span(at, at + len(w))
        return None

    def unindexed_asked(self, asked: Asked, target: str | None) -> str:
        """The left-out field a lookup asks for, when the question names it more closely than any indexed one."""
        latin = CJK_RUN.sub(lambda m: " " * len(m.group(0)), asked.qf)
        named = [m for m in asked.mentions if m.field == target]
        for surface in sorted(self.vocabulary.unindexed, key=len, reverse=True):
            if HAS_CJK.search(surface):
                at = asked.qf.find(surface)
            else:
                m = re.search(rf"(?<![^\W_]){re.escape(surface)}(?![^\W_])", latin)
                at = m.start() if m else -1
            end = at + len(surface)
            if at < 0 or any(s.overlaps(at, end) for s in asked.taken):
                continue
            if target is None or all(x.asking for x in named) or any(
                    at <= x.start and x.end <= end and (x.start, x.end) != (at, end) for x in named):
                return self.vocabulary.unindexed[surface]
        return ""


def starts(surface: str, qf: str, latin: str) -> list[int]:
    """Where a field's surface stands in the question: anywhere for CJK, as whole words otherwise (``latin`` is the
    question with its CJK runs blanked, so a CJK neighbour is a word boundary and positions still map)."""
    if HAS_CJK.search(surface):
        return [m.start() for m in re.finditer(re.escape(surface), qf)]
    return [m.start() for m in re.finditer(rf"(?<![^\W_]){re.escape(surface)}(?![^\W_])", latin)]


# ---- the third pass's readings (issue 64): surfaces found beside each other, qualifiers, compounds ------
def _split(split: list[tuple[str, str, frozenset[str]]], qf: str, latin: str) -> list[Mention]:
    """A field named by one of its words as written and another's translation within a few characters:
    "goodreads 上的编号" is goodreads_book_id's number (issue 64)."""
    out: list[Mention] = []
    for name, word, said in split:
        for s in starts(word, qf, latin):
            e = s + len(word)
            for w in said:
                for t0 in starts(w, qf, latin):
                    lo, hi = (e, t0) if t0 >= e else (t0 + len(w), s)
                    if 0 <= hi - lo <= _BESIDE_CHARS:
                        out.append(Mention(name, min(s, t0), max(e, t0 + len(w)), 2.0))
    return out


def _qualifiers(qualifier_surfaces: dict[str, list[str]], qf: str, taken: list[Span]) -> list[Mention]:
    """Qualifier words in the question ("across all editions", 全版): each prefers the fields it qualifies."""
    latin = CJK_RUN.sub(lambda m: " " * len(m.group(0)), qf)
    out = []
    for surface, fields in qualifier_surfaces.items():
        for s in starts(surface, qf, latin):
            if not any(t.overlaps(s, s + len(surface)) for t in taken):
                out += [Mention(f, s, s + len(surface), QUALIFIER) for f in fields]
    return out


def _compounds(surfaces: dict[str, list[tuple[str, float, bool]]], qf: str, taken: list[Span], found: list[Mention],
               many: bool, german: bool) -> list[Mention]:
    """A German compound ends with its head: "Versandgewicht" is a weight, "Verkaufspreis" a price,
    "Textrezensionen" reviews — the longest ending that names a field names it (issue 64)."""
    out: list[Mention] = []
    for tok, s, e in tokens(qf):
        if len(tok) < _COMPOUND_CHARS or HAS_CJK.search(tok) or any(x.overlaps(s, e) for x in taken) \
                or any(m.start < e and s < m.end for m in found):
            continue
        head = next((tok[i:] for i in range(2, len(tok) - _HEAD_SPARE) if tok[i:] in surfaces), None)
        if head is None or not (german or own_language_word(tok, "de")):
            continue
        plural = many or head.endswith(("s", "en", "n"))
        for name, score, countish in surfaces[head]:
            out.append(Mention(name, s, e, score + (0.5 if countish == plural else 0.0)))
    return out


def _counted(surfaces: dict[str, list[tuple[str, float, bool]]], before: str) -> bool:
    """Does ``before`` end with a count field's words and "of" ("how many editions of", "number of ratings
    for")? Then the number after it names a row: "How many editions of 1984 are there?" (issue 64)."""
    head = re.sub(r"\s*\b(?:of|for)\s+$", "", before.casefold())
    return any(any(c for _, _, c in owners) and (head == s or head.endswith(" " + s))
               for s, owners in surfaces.items() if not HAS_CJK.search(s))
