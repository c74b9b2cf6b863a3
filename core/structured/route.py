"""Question → one tool call, by rules over the index's field names, their synonyms and values.

No model is needed: a question is routed when its words name the index's fields, values
or items and ask for a count, a filter, a group, an extreme or a field of a named item
(English and Chinese forms). Anything else is not routed and goes to retrieval.
``Router.route`` returns the call and the evidence it read, for the trace and console.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from biny.core.calls import Refusal as Refusal
from biny.core.calls import Routed as Routed
from biny.core.i18n import t
from biny.core.store.structured import QueryTable
from biny.core.structured import lexicon as lx
from biny.core.structured.naming import NEUTRAL, NameMatcher, Reading
from biny.core.structured.spec import FieldSpec, IndexSpec
from biny.core.structured.tools import Condition, ToolCall, items_col, q
from biny.core.structured.values import is_id_name
from biny.core.text.common_words import own_language_word
from biny.core.text.question import sentence_language

_CJK = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)*")
_HAS_CJK = re.compile(rf"[{_CJK}]")
_CJK_RUN = re.compile(rf"[{_CJK}]+")
# A trailing e-mail, handle or note in brackets: "Guido van Rossum <guido@python.org>" is also "Guido van Rossum".
_BRACKET_TAIL = re.compile(r"\s*[<(（\[][^<>()（）\[\]]*[>)）\]]\s*$")
# A title in quotes, each opening mark with its own closing one: “Skateboard 28" x 8"” keeps its inch marks.
_QUOTED = re.compile(r'“([^”]{2,400})”|「([^」]{2,400})」|『([^』]{2,400})』|《([^》]{2,400})》|"([^"]{2,400})"'
                     r"|‘([^’]{2,400})’")
_PAREN_TAIL = re.compile(r"\s*[(（\[][^()（）\[\]]*[)）\]]\s*$")
_MAX_NGRAM = 64  # product names run to 40 words and more
# A run of capitalised words (Latin script): a name, a title, a place.
_CAP = r"[A-Z][A-Za-z0-9'’.&-]*"
_NAME = re.compile(rf"(?<![A-Za-z0-9]){_CAP}(?:\s+(?:of|the|and|de|von|van|&)?\s*{_CAP})*")
_ASKING = re.compile(r"(?:how|what|which|wie|was|welche[rs]?|wann|wer)\s")
# A number as digits, a number word ("five", "fünf") or a CJK numeral (五星): see lexicon.NUMBER_WORDS.
_NUMBER = re.compile(r"[一二三四五六七八九十两]|(?<!\d)\d{1,2}(?!\d)|(?<![^\W\d_])[a-zäöüß]+(?![^\W\d_])")
_NUMBER_GAP = re.compile(r"[\s\-‐–_]*(?:digits?|stellige?n?|位|桁)?[\s\-‐–_]*")
# A unit's word names its field only as the thing asked for: "how many meters", "wie viele Monate", 几个月, 何メートル
# ("the Flow Meter" names a row, not the range in metres).
_UNIT_ASKED = re.compile(
    r"(?:how many|how much|how far|how long|wie viele|wie viel|wie weit|wie lange|多少|几个?|何)\s*$")
_MAX_VALUES = 50_000  # distinct values or list items of one field kept for matching
_QUALIFIER = 0.25  # what a qualifier adds to a field named alike with others ("all editions": work_ratings_count)
# Between two fields' words side by side, the later is the head noun: "amazon link", "Amazon-Link", 亚马逊链接,
# アマゾンのリンク ask the link, not the "Is Amazon Seller" flag.
_MODIFIER_GAP = re.compile(r"[\s\-‐–]?|[の的]")


# A code as people write one: Latin letters and digits, both, with dashes or dots inside ("TA-210", "b07xk9", "TV-7").
_CODE = re.compile(r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9.-]*[0-9])(?=[A-Za-z0-9.-]*[A-Za-z])"
                   r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?![A-Za-z0-9-])")

def key(text: str) -> str:
    """Punctuation- and case-insensitive form for matching names and values."""
    return " ".join(m.group(0) for m in _TOKEN.finditer(text.casefold().replace("’", "'")))


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _name_words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return [t for t, _, _ in _tokens(spaced.casefold())]


def _starts(surface: str, qf: str, latin: str) -> list[int]:
    """Where a field's surface stands in the question: anywhere for CJK, as whole words otherwise (``latin`` is the
    question with its CJK runs blanked, so a CJK neighbour is a word boundary and positions still map)."""
    if _HAS_CJK.search(surface):
        return [m.start() for m in re.finditer(re.escape(surface), qf)]
    return [m.start() for m in re.finditer(rf"(?<![^\W_]){re.escape(surface)}(?![^\W_])", latin)]


def _singular(w: str) -> str:
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


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
class _Asked:
    """A question as the router reads it, once (issue 56): what each routing step starts from."""

    question: str
    qf: str  # casefolded, same length as the question
    ev: list[str]  # the evidence so far, appended by each step
    ids: list[str]  # the named item's row, when one is named
    item_words: str
    reading: Reading | None  # how a name written the way people write it was read (issue 64)
    taken: list[Span]  # spans already explained
    mentions: list[Mention]  # fields named
    counting: re.Match[str] | None
    qualifiers: list[Mention]  # words that prefer one of the fields named alike ("all editions": work_…)


class Router:
    """Built once per index generation: surfaces of every field, its values, its items' titles."""

    def __init__(self, spec: IndexSpec, table: QueryTable) -> None:
        self.spec = spec
        # surface → (field, score, countish)
        self.surfaces: dict[str, list[tuple[str, float, bool]]] = defaultdict(list)
        # Fields numbered within a kind ("ratings_5", "isbn13"): the kind's words, the number, countish.
        self.numbered: list[tuple[str, frozenset[str], int, bool]] = []
        self.unit_words: set[str] = set()  # surfaces that are a field's unit: named only when asked (_UNIT_ASKED)
        # Qualifier surface → fields it prefers ("all editions" → work_ratings_count, work_text_reviews_count).
        self.qualifier_surfaces: dict[str, list[str]] = defaultdict(list)
        # A field named by one of its words as written and another in translation, apart: "goodreads 上的编号".
        self.split: list[tuple[str, str, frozenset[str]]] = []
        for f in spec.fields:
            self._add_surfaces(f)
            _add_qualified(f, self.qualifier_surfaces, self.split)
        self.values: dict[str, list[tuple[str, object]]] = defaultdict(list)  # key → (field, value or [codes])
        self.cjk_values: list[str] = []
        self.titles: dict[str, list[str]] = defaultdict(list)  # key → doc_ids, the title as written first
        self.exact_titles: dict[str, int] = {}  # key → rows titled exactly so
        self.cjk_titles: list[str] = []
        # Items named by a key instead of a title ("PEP 484", "model number B0123"): field → value key → doc_ids.
        self.keyed: dict[str, dict[str, list[str]]] = {}
        self._load(table)
        self._load_keys(table)
        named = table.query("SELECT doc_id, title FROM idx WHERE title IS NOT NULL ORDER BY doc_id")
        self.name_ids = [r[0] for r in named]
        self.names = NameMatcher([r[1] for r in named], lx.STOPWORDS)
        self.synonyms: dict[str, list[str]] = {}
        for name, extra in (spec.extra.get("synonyms") or {}).items():
            self.add_synonyms(name, extra)
        # Words for attributes no field carries ("weight", 颜色 over a table without them): asked of a named row,
        # they are refused and the closest field named, never answered with another field (issue 64).
        self.unindexed = self._unindexed_surfaces(spec)
        # Qualifiers no field carries ("list price" over a table whose price is the selling price).
        self.foreign_qualifiers = {w for ws in lx.QUALIFIERS.values() for w in ws} - set(self.qualifier_surfaces)
        held = set(self.surfaces) | set(self.unindexed) | {w for f in spec.fields for w in _name_words(f.name)}
        held_words = set().union(*(ws for ws in lx.CONCEPTS.values() if ws & held))
        # A word of a concept the table holds is never lacking through another concept: 编号 is a SKU's number
        # as well as an identifier.
        self.lacking = {w: c for c, ws in lx.CONCEPTS.items() if not ws & held for w in ws if w not in held_words}

    # ---- building ------------------------------------------------------------------------------
    def add_synonyms(self, name: str, extra: list[str]) -> None:
        """A curator's own words for a field (stored with the index spec): they name it as its name does."""
        f = self.spec.get(name)
        if f is None:
            return
        countish = f.numeric and any(w in lx.COUNT_WORDS for w in _name_words(f.name))
        for w in extra:
            k = key(w)
            if k and (name, 3.0, countish) not in self.surfaces[k]:
                self.surfaces[k].append((name, 3.0, countish))
                self.synonyms.setdefault(name, []).append(w)

    def _add_surfaces(self, f: FieldSpec) -> None:
        words = _name_words(f.name)
        countish = f.numeric and any(w in lx.COUNT_WORDS for w in words)
        self.surfaces[key(f.name)].append((f.name, 3.0, countish))
        self._add_partial(f, words, countish)
        if any(w.isdigit() for w in words) or (is_id_name(f.name) and f.type in {"identifier", "integer"}):
            # "ratings_1", "book_id": only their own names name them — and the words people use for the whole
            # name ("article number", 货号 for "SKU").
            for group in lx.SYNONYM_GROUPS:
                if key(f.name) in group:
                    for s in group:
                        if s != key(f.name):
                            self.surfaces[s].append((f.name, 1.0, countish))
            return
        # A unit in brackets ("Range (m)", "Battery life (months)") is no name of the field.
        unit = set(_name_words(_PAREN_TAIL.sub("", f.name))) if _PAREN_TAIL.search(f.name) else set(words)
        strong = [w for w in words if w not in lx.WEAK_WORDS and w not in lx.COUNT_WORDS and not w.isdigit()
                  and w in unit and len(w) > 1]
        forms: set[str] = set()
        if countish and not strong and all(w in lx.OWN_ITEM_WORDS or w in lx.COUNT_WORDS for w in words):
            # "books_count" in a table of books: how many of the row's own kind it groups, its editions (issue 64).
            forms |= lx.CONCEPTS.get("edition", frozenset())
        for group in lx.SYNONYM_GROUPS:  # a concept for the whole name ("original title": 原名, Originaltitel)
            if key(f.name) in group:
                forms |= group
        for w in strong:
            forms |= {w, _singular(w), _singular(w) + "s"}
            for group in lx.SYNONYM_GROUPS:
                if w in group or _singular(w) in group or any(g in w for g in group if _HAS_CJK.search(g)):
                    forms |= group
        for s in forms:
            if s and s != key(f.name):
                # A question's form ("how much", "wie viel", "what kind") names a field less than a word for it:
                # "How much does the Mikasa ball weigh?" asks the weight.
                self.surfaces[s].append((f.name, 0.6 if _ASKING.match(s) else 1.0, countish))

    def _unindexed_surfaces(self, spec: IndexSpec) -> dict[str, str]:
        """Surface → a field the rows hold but the index leaves out ("Product Dimensions" in 16 of 300 rows)."""
        saved = self.surfaces, self.numbered, self.unit_words
        self.surfaces, self.numbered, self.unit_words = defaultdict(list), [], set()
        try:
            for name in spec.extra.get("unindexed") or []:
                if spec.get(name) is None:
                    self._add_surfaces(FieldSpec(name, "text"))
            return {s: owners[0][0] for s, owners in self.surfaces.items()}
        finally:
            self.surfaces, self.numbered, self.unit_words = saved

    def _unindexed_asked(self, asked: _Asked, target: str | None) -> str:
        """The left-out field a lookup asks for, when the question names it more closely than any indexed one."""
        latin = _CJK_RUN.sub(lambda m: " " * len(m.group(0)), asked.qf)
        named = [m for m in asked.mentions if m.field == target]
        for surface in sorted(self.unindexed, key=len, reverse=True):
            if _HAS_CJK.search(surface):
                at = asked.qf.find(surface)
            else:
                m = re.search(rf"(?<![^\W_]){re.escape(surface)}(?![^\W_])", latin)
                at = m.start() if m else -1
            end = at + len(surface)
            if at < 0 or any(s.overlaps(at, end) for s in asked.taken):
                continue
            if target is None or all(x.asking for x in named) or any(
                    at <= x.start and x.end <= end and (x.start, x.end) != (at, end) for x in named):
                return self.unindexed[surface]
        return ""

    def _add_partial(self, f: FieldSpec, words: list[str], countish: bool) -> None:
        """Names a field carries beyond its words' synonyms: two of its words together ("goodreads id" for
        goodreads_book_id, "text reviews"), the words for its unit ("how many meters" for "Range (m)"), and its
        number beside its kind ("5-star ratings", 五星, "ISBN-13" for ratings_5 and isbn13)."""
        plain = [w for w in words if not w.isdigit() and w not in lx.STOPWORDS]
        for i, a in enumerate(plain):
            for b in plain[i + 1 :]:
                pair = f"{a} {b}"
                if pair != key(f.name) and not (a in lx.COUNT_WORDS and b in lx.COUNT_WORDS):
                    self.surfaces[pair].append((f.name, 2.0, countish))
                for said in (ws for ws in lx.CONCEPTS.values() if pair in ws and not {a, b, _singular(a),
                                                                                       _singular(b)} & ws):
                    # A concept for two words together: "small image" is a thumbnail, 缩略图, サムネイル.
                    for w in said - {pair}:
                        self.surfaces[w].append((f.name, 2.0, countish))
        unit = _PAREN_TAIL.search(f.name)
        if unit:
            for w in lx.UNIT_WORDS.get(key(unit.group(0)), ()):
                self.surfaces[w].append((f.name, 1.0, countish))
                self.unit_words.add(w)
        number = next((int(m.group(2)) for w in words if (m := re.fullmatch(r"([^\W\d_]*)(\d{1,2})", w))), None)
        if number is None:
            return
        bases = [re.sub(r"\d+$", "", w) for w in words]
        kinds: set[str] = set()
        for b in (b for b in bases if len(b) > 1 and b not in lx.WEAK_WORDS and b not in lx.COUNT_WORDS):
            kinds |= {b, _singular(b), _singular(b) + "s"}
            for group in lx.SYNONYM_GROUPS:
                if b in group or _singular(b) in group:
                    kinds |= group
        if kinds:
            self.numbered.append((f.name, frozenset(kinds), number, countish))

    def _numbered(self, qf: str, latin: str) -> list[Mention]:
        """A numbered field named by its kind's word with its number beside it (within a few characters)."""
        out: list[Mention] = []
        for name, kinds, number, _ in self.numbered:
            for surface in kinds:
                for s in _starts(surface, qf, latin):
                    e = s + len(surface)
                    lo, hi = max(0, s - 12), min(len(qf), e + 12)
                    for m in _NUMBER.finditer(qf, lo, hi):
                        said = m.group(0)
                        value = int(said) if said.isdigit() else lx.NUMBER_WORDS.get(said)
                        gap = qf[m.end() : s] if m.end() <= s else qf[e : m.start()]
                        # Beside each other: "5-star", "ISBN-13", "13-digit ISBN", "13 位 ISBN", 星2 — not "1 million
                        # ratings" (a magnitude) nor "Hunger Games 1 rating" by way of other words.
                        if value == number and _NUMBER_GAP.fullmatch(gap):
                            out.append(Mention(name, min(s, m.start()), max(e, m.end()), 4.0))
        return out

    def _load(self, table: QueryTable) -> None:
        spec = self.spec
        # A title as written names its row before any shortened form does: "The Hobbit" is the row titled so,
        # not "The Hobbit: Graphic Novel" shortened at its colon (issue 49). Rank 0 the title, 1 without its
        # bracketed tail ("(Series, #1)"), 2 before its colon; each key lists its rows best first.
        ranked: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for doc_id, title in table.query("SELECT doc_id, title FROM idx WHERE title IS NOT NULL"):
            variants = (title, _PAREN_TAIL.sub("", title), title.split(": ")[0] if ": " in title else title)
            seen: set[str] = set()
            for rank, variant in enumerate(variants):
                k = key(variant)
                if k and k not in seen:
                    seen.add(k)
                    ranked[k].append((rank, doc_id))
        for k, found in ranked.items():
            self.titles[k] = [d for _, d in sorted(found, key=lambda x: x[0])]
            self.exact_titles[k] = sum(rank == 0 for rank, _ in found)
        self.cjk_titles = [k for k in self.titles if _HAS_CJK.search(k)]
        for f in spec.fields:
            if f.name == spec.title_field or f.type not in {"text", "list"}:
                continue
            col = items_col(f.name) if f.type == "list" else f.name
            sql = (f"SELECT DISTINCT unnest({q(col)}) FROM idx" if f.type == "list"
                   else f"SELECT DISTINCT {q(col)} FROM idx WHERE {q(col)} IS NOT NULL")
            distinct = [str(r[0]) for r in table.query(sql + f" LIMIT {_MAX_VALUES + 1}")]
            if len(distinct) > _MAX_VALUES or (f.type == "text" and len(distinct) > 0.5 * len(table) + 50):
                continue  # nearly every row has its own value: not a category to filter on
            by_key: dict[str, set[str]] = defaultdict(set)
            for v in distinct:
                by_key[key(v)].add(v)
                stem = _BRACKET_TAIL.sub("", v)
                if stem and stem != v:
                    by_key[key(stem)].add(v)
            for k, vals in by_key.items():
                if len(k) >= 2 and k not in lx.STOPWORDS and not k.replace(" ", "").isdigit():
                    self.values[k].append((f.name, sorted(vals) if len(vals) > 1 else next(iter(vals))))
            self._language_aliases(f, distinct)
        self.cjk_values = [k for k in self.values if _HAS_CJK.search(k)]

    def _load_keys(self, table: QueryTable) -> None:
        """Identifier and integer fields whose values name one document each (nine in ten distinct or more)."""
        for f in self.spec.fields:
            if f.name == self.spec.title_field or f.type not in {"identifier", "integer"}:
                continue
            by_value: dict[str, list[str]] = defaultdict(list)
            for doc_id, value in table.query(f"SELECT doc_id, {q(f.name)} FROM idx WHERE {q(f.name)} IS NOT NULL"):
                text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
                by_value[key(text)].append(doc_id)
            if by_value and len(by_value) >= 0.9 * sum(map(len, by_value.values())):
                self.keyed[f.name] = dict(by_value)

    def _keyed_item(self, question: str, qf: str) -> tuple[list[str], Span | None, str]:
        """An item named by its key field and value: "PEP 484", "PEP 8的状态", "model number 55324"."""
        for name, by_value in self.keyed.items():
            surface = re.escape(key(name)).replace(r"\ ", r"[\s_-]*")
            # The value stops at a CJK character: "PEP 647的状态" names 647.
            value_rx = rf"((?:(?![{_CJK}])[^\W_])(?:(?![{_CJK}])[\w./-])*)"
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
            for name, by_value in self.keyed.items():
                f = self.spec.get(name)
                ids = by_value.get(key(m.group(0))) if f is not None and f.type == "identifier" else None
                if ids and len(ids) == 1:
                    return ids, Span(m.start(), m.end()), question[m.start() : m.end()]
        return [], None, ""

    def _language_aliases(self, f: FieldSpec, distinct: list[str]) -> None:
        prefixes = [v.split("-")[0].casefold() for v in distinct]
        known = sum(p in lx.LANGUAGE_NAMES for p in prefixes)
        if not distinct or (known < 0.8 * len(distinct) and "lang" not in f.name.casefold() and "语" not in f.name):
            return
        by_name: dict[str, list[str]] = defaultdict(list)
        for v, p in zip(distinct, prefixes, strict=True):
            for name in lx.LANGUAGE_NAMES.get(p, ()):
                by_name[name].append(v)
        for name, codes in by_name.items():
            self.values[key(name)].append((f.name, sorted(codes)))

    # ---- reading a question ----------------------------------------------------------------------
    def _mentions(self, qf: str, taken: list[Span]) -> list[Mention]:
        out: list[Mention] = []
        # For Latin-script surfaces a CJK neighbour is a word boundary ("个PEP的"): same length, so
        # positions still map to the question.
        latin = _CJK_RUN.sub(lambda m: " " * len(m.group(0)), qf)
        many = lx.MANY_QUESTION.search(qf) is not None  # "how many people rated …": the count is asked
        for surface, owners in self.surfaces.items():
            for s in _starts(surface, qf, latin):
                e = s + len(surface)
                if any(t.overlaps(s, e) for t in taken) or (surface in self.unit_words
                                                             and not _UNIT_ASKED.search(qf[:s])):
                    continue
                plural = many or (surface.endswith("s") and not surface.endswith("ss")) or bool(
                    re.search(r"number of\s+$", qf[:s])) or bool(re.match(r"\s*(?:人数|数量|次数|数|个数)", qf[e:]))
                asking = bool(_ASKING.match(surface))
                for name, score, countish in owners:
                    out.append(Mention(name, s, e, score + (0.5 if countish == plural else 0.0), asking))
        out += [m for m in self._numbered(qf, latin) if not any(t.overlaps(m.start, m.end) for t in taken)]
        out += [m for m in _split(self.split, qf, latin) if not any(t.overlaps(m.start, m.end) for t in taken)]
        # German compounds in a German question — or, where the question is mostly an English name and too short to
        # tell, a compound that is itself German ("Versandgewicht Delta Children SpongeBob Kleinkindbett").
        german = sentence_language(qf) == "de"
        out += _compounds(self.surfaces, qf, taken, out, many, german)
        return out

    def _item(self, question: str, qf: str) -> tuple[list[str], Span | None, str]:
        """The row the question names by its title or its key: (doc_ids, span, words)."""
        keyed = self._keyed_item(question, qf)
        if keyed[0]:
            return keyed
        for m in _QUOTED.finditer(question):
            quoted = next(g for g in m.groups() if g is not None)
            ids = self.titles.get(key(quoted))
            if ids:
                return ids, Span(m.start(), m.end()), quoted
        toks = _tokens(qf)
        best: tuple[int, int, int] | None = None
        for i in range(len(toks)):
            for j in range(min(len(toks), i + _MAX_NGRAM), i, -1):
                k = " ".join(t for t, _, _ in toks[i:j])
                if k in self.titles and self._plausible_title(k, question, toks[i][1], j - i,
                                                                  lambda b: _counted(self.surfaces, b)):
                    if best is None or toks[j - 1][2] - toks[i][1] > best[1] - best[0]:
                        best = (toks[i][1], toks[j - 1][2], 0)
                    break
        for k in self.cjk_titles:
            s = qf.find(k)
            if s >= 0 and len(k) >= 2 and (best is None or len(k) > best[1] - best[0]):
                best = (s, s + len(k), 1)
        if best is None or self._inside_longer_name(question, best[0], best[1]):
            return [], None, ""
        words = question[best[0] : best[1]]
        return self.titles[key(words)], Span(best[0], best[1]), words

    def _inside_longer_name(self, question: str, start: int, end: int) -> bool:
        """A title found inside a longer capitalised name: "Four: A Divergent Collection" is not "Divergent". Words
        for a field ("Twilight Author") or for the kind of thing ("Twilight Book") are no part of a name."""
        for m in _NAME.finditer(question):
            if m.start() <= start and end <= m.end() and (m.start(), m.end()) != (start, end):
                beside = question[m.start() : start].split() + question[end : m.end()].split()
                extra = [w for w in beside if (k := key(w)) and k not in lx.STOPWORDS and k not in self.surfaces
                         and k not in NEUTRAL]
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
            return len(k) >= 4 and question[start : start + 1].isupper()
        return len(k) >= 5

    def _value_covers(self, qf: str, span: Span) -> bool:
        """Does a field value cover more of the question than the title match does?"""
        toks = _tokens(qf)
        for i in range(len(toks)):
            for j in range(min(len(toks), i + 8), i, -1):
                s, e = toks[i][1], toks[j - 1][2]
                if span.overlaps(s, e) and e - s > span.end - span.start \
                        and " ".join(t for t, _, _ in toks[i:j]) in self.values:
                    return True
        return False

    def _value_spans(self, qf: str, taken: list[Span]) -> list[tuple[int, int, str]]:
        """Where the question writes a value of a filterable field: (start, end, value key), longest first."""
        toks = _tokens(qf)
        found: list[tuple[int, int, str]] = []
        i = 0
        while i < len(toks):
            hit = None
            for j in range(min(len(toks), i + 8), i, -1):
                k = " ".join(t for t, _, _ in toks[i:j])
                s, e = toks[i][1], toks[j - 1][2]
                if k in self.values and not any(t.overlaps(s, e) for t in taken):
                    hit = (s, e, k, j)
                    break
            if hit:
                found.append((hit[0], hit[1], hit[2]))
                i = hit[3]
            else:
                i += 1
        for k in sorted(self.cjk_values, key=len, reverse=True):
            s = qf.find(k)
            if s >= 0 and not any(t.overlaps(s, s + len(k)) for t in taken) \
                    and not any(a <= s < b for a, b, _ in found):
                found.append((s, s + len(k), k))
        return found

    def _value_conditions(self, question: str, qf: str, taken: list[Span],
                          evidence: list[str]) -> list[Condition]:
        conds: list[Condition] = []
        for s, e, k in self._value_spans(qf, taken):
            fname, value = self.values[k][0]
            f = self.spec.get(fname)
            assert f is not None
            if isinstance(value, list):
                conds.append(Condition(fname, "in", value))
            else:
                conds.append(Condition(fname, "in" if f.type == "list" else "=", [value]))
            taken.append(Span(s, e))
            evidence.append(f"value {question[s:e]!r} → {fname}")
        return conds

    def _number_field(self, pos: int, unit: str, op: str, value: float, mentions: list[Mention]) -> str | None:
        numeric = [m for m in mentions if (f := self.spec.get(m.field)) is not None and f.numeric]
        # A unit says which kind of field: "2005年以前创建的PEP" compares a date, not the number named "PEP".
        kinds = {"money"} if unit and unit not in {"年"} and not unit.lower().startswith("star") else \
            {"year", "date"} if unit == "年" else set()
        if kinds and any(self.spec.get(m.field).type in kinds for m in numeric):  # type: ignore[union-attr]
            numeric = [m for m in numeric if self.spec.get(m.field).type in kinds]  # type: ignore[union-attr]
        if numeric:
            best = min(numeric, key=lambda m: (min(abs(m.start - pos), abs(m.end - pos)), -m.score))
            return best.field
        fields = [f for f in self.spec.fields if f.numeric]
        money = unit and unit.lower() not in {"年", "star", "stars"}
        yearish = unit == "年" or (value == int(value) and 1000 <= value <= 2100 and op in {"<", ">", "<=", ">=", "="})
        if money:
            fields = [f for f in fields if f.type == "money"]
        elif yearish:
            fields = [f for f in fields if f.type in {"year", "date"}]
        elif unit.lower().startswith("star"):
            fields = [f for f in fields if key(f.name) in {"rating", "average rating", "stars"}]
        else:
            return None
        return fields[0].name if fields else None

    def _number_conditions(self, question: str, qf: str, taken: list[Span], mentions: list[Mention],
                           evidence: list[str]) -> list[Condition]:
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
            before, after = qf[max(0, s - 30) : s], qf[e : e + 12]
            op = next((o for rx, o in lx.AFTER_NUMBER if rx.search(after)), None)
            if op is None:
                op = next((o for rx, o in lx.BEFORE_NUMBER if rx.search(before)), None)
            if op is None and unit == "年":
                op = "="
            if op is None or (op == "=" and not (value == int(value) and 1000 <= value <= 2100)
                              and not lx.YEAR_HINT.search(before + after)):
                continue
            f = self._number_field(s, unit, op, value, mentions)
            if f:
                conds.append(Condition(f, op, value))
                evidence.append(f"{question[max(0, s - 12) : e + 6].strip()!r} → {f} {op} {value:g}")
        return conds

    def _subject_field(self, qf: str, mentions: list[Mention]) -> str | None:
        """The categorical field named right after "which"/"哪个" (the thing being grouped)."""
        for w in lx.WHICH.finditer(qf):
            near = [m for m in mentions if 0 <= m.start - w.end() <= 4 and self._categorical(m.field)]
            if near:
                return max(near, key=lambda m: m.score).field
        return None

    def _categorical(self, name: str) -> bool:
        f = self.spec.get(name)
        return f is not None and f.type in {"text", "list"} and name != self.spec.title_field

    def _best(self, mentions: list[Mention], want: str, with_title: bool = False,
              bonus: dict[str, float] | None = None) -> str | None:
        """The best-named field of a kind: "numeric", "categorical" or "any" (the title only ``with_title``);
        ``bonus``: what qualifier words add to the fields they qualify."""
        pool = []
        for m in mentions:
            f = self.spec.get(m.field)
            if f is None or (m.field == self.spec.title_field and not with_title):
                continue
            if (want == "numeric" and not f.numeric) or (want == "categorical" and not self._categorical(m.field)):
                continue
            pool.append(m)
        if not pool:
            return None
        order = {n: i for i, n in enumerate(self.spec.names)}
        extra = bonus or {}
        best = max(pool, key=lambda m: (m.score + extra.get(m.field, 0.0),
                                        self.spec.get(m.field).exact,  # type: ignore[union-attr]
                                        -len(_name_words(m.field)), -order[m.field]))
        return best.field

    def route(self, question: str) -> Routed:
        """The tool call a question asks for, or why none (each step below returns when it decides)."""
        asked = self._asked(question)
        if asked.ids:  # a lookup: a named item and one of its fields ("the link of The Hunger Games")
            return self._lookup(asked)
        # "多少钱" asks a price, not a count: counting words inside a field's words do not count.
        counting, mentions = asked.counting, asked.mentions
        # "评分多少" (the rating, how much) asks the field's value too: a counting word right after a field's words.
        asks_count = counting is not None and not any(m.start <= counting.start() <= m.end + 1 for m in mentions)
        refused = self._no_such_row(asked, asks_count)
        if refused is not None:
            return refused
        qf, taken = asked.qf, asked.taken
        taken += [Span(m.start, m.end) for m in mentions]
        conds = self._value_conditions(question, qf, taken, asked.ev)
        conds += self._number_conditions(question, qf, taken, mentions, asked.ev)
        unknown = self._unexplained_names(question, taken)
        if unknown:
            return self._unexplained(asked, unknown, asks_count)
        return self._aggregate(asked, conds)

    def _asked(self, question: str) -> _Asked:
        """The question read once: the item it names (as written, or shortened, misspelt: issue 64), the values
        and fields it mentions, its counting words."""
        # Same length as the question, so spans map back: "book_id" reads as the words "book id".
        qf = question.casefold().replace("’", "'").replace("_", " ")
        ids, item_span, item_words = self._item(question, qf)
        if item_span is not None and self._value_covers(qf, item_span):
            ids, item_span, item_words = [], None, ""  # "Stephen King" is an author, not the book "King"
        reading: Reading | None = None
        if not ids:  # named the way people name it: shortened, brand dropped, misspelt (issue 64)
            asked = [(m.start, m.end) for m in [*self._mentions(qf, []), *_qualifiers(self.qualifier_surfaces, qf, [])]]
            reading = self.names.read(question, asked)
            named = reading.named
            if named is not None and not self._value_covers(qf, Span(named.start, named.end)):
                ids, item_span = [self.name_ids[named.row]], self._whole_name(qf, named.start, named.end,
                                                                               self.names.names[named.row])
                item_words = question[item_span.start : item_span.end]
        taken = [item_span] if item_span else []
        # A value outweighs a field's name inside it: "母婴用品类" is the category 母婴用品, not the word 品类.
        values = [Span(a, b) for a, b, _ in self._value_spans(qf, taken)]
        mentions = [m for m in self._mentions(qf, taken)
                    if not any(v.overlaps(m.start, m.end) and v.end - v.start > m.end - m.start for v in values)]
        qualifiers = _qualifiers(self.qualifier_surfaces, qf, taken)
        # Words inside a qualifier are its own: "editions" in "across all editions" asks no count of editions.
        mentions = [m for m in mentions if not any(
            x.start <= m.start and m.end <= x.end and x.end - x.start > m.end - m.start for x in qualifiers)]
        return _Asked(question, qf, [], ids, item_words, reading, taken, mentions, lx.COUNT_QUESTION.search(qf),
                      qualifiers)

    @staticmethod
    def _whole_name(qf: str, start: int, end: int, name: str) -> Span:
        """The named row's span widened over the row's own words beside it that were read as a field's words
        ("Name of the Wind": "name" is a word for the title, and the first word of this row's name)."""
        own = set(key(name).split())
        toks = _tokens(qf)
        inside = [i for i, (_, s, e) in enumerate(toks) if s >= start and e <= end]
        if not inside:
            return Span(start, end)
        lo, hi = inside[0], inside[-1]
        while lo > 0 and inside[0] - lo < 5 and toks[lo - 1][0] in own:
            lo -= 1
        while hi + 1 < len(toks) and hi - inside[-1] < 5 and toks[hi + 1][0] in own:
            hi += 1
        return Span(min(start, toks[lo][1]), max(end, toks[hi][2]))

    def _lookup(self, asked: _Asked) -> Routed:
        """A named item: the field asked of it, or why none can be answered."""
        qf, item_words, reading, ev = asked.qf, asked.item_words, asked.reading, asked.ev
        target = self._lookup_field(asked)
        left_out = self._unindexed_asked(asked, target)
        if left_out:
            # The row is named and its passage holds the field as a "Field: value" line: read from that row alone,
            # never from whichever passages retrieval finds (issue 64).
            ev.append(t("asks for {field!r}, which the rows hold but the index leaves out: read from the named row's "
                        "own text").format(field=left_out))
            return Routed(ToolCall("lookup", left_out, doc_id=asked.ids[0], matched=item_words), ev)
        if target is not None and self._outweighed(asked, target):
            target = None
        other = _other_kind(self.foreign_qualifiers, asked, target)
        if other:  # "list price" of a table whose price is the selling price: not that price (issue 64)
            ev.append(t("asks for {asked!r}; the table's {field!r} is another kind of it").format(
                asked=other, field=target))
            return Routed(None, ev, refusal=Refusal("field", other, target or "", self._title(asked.ids[0]),
                                                    asked.ids[0]))
        k = key(item_words)
        if reading is not None and reading.named is not None:
            how = t("its distinctive words (covering {share})").format(share=f"{reading.named.cover:.0%}")
            if reading.named.misspelt:
                how += "; " + ", ".join(f"{a!r} read as {b!r}" for a, b in reading.named.misspelt)
        else:
            how = (t("its title as written") if self.exact_titles.get(k) else
                   t("its title before a colon or bracket") if k in self.titles else t("its key field"))
        title = self._title(asked.ids[0]) or item_words
        if target is not None:
            ev.append(t("item {item!r}, matched by {how}").format(item=item_words, how=how))
            ev.append(t("field {target!r} named in the question").format(target=target))
            others = [self.names.names[i] for i in reading.named.others] \
                if reading is not None and reading.named is not None else []
            if others:
                ev.append(t("also near: {names}").format(names="; ".join(others)))
            return Routed(ToolCall("lookup", target, doc_id=asked.ids[0], matched=item_words), ev, others=others)
        lacking = self._lacking(qf, asked.taken)
        if lacking:
            closest = self._closest_field(lacking)
            ev.append(t("asks for {asked!r}, which no field of the index holds").format(asked=lacking))
            return Routed(None, ev, refusal=Refusal("field", lacking, closest, title, asked.ids[0],
                                                    self.lacking.get(lacking, "")))
        ev.append(t("names the item {item_words!r} but none of its fields: a question about it, for retrieval")
                  .format(item_words=item_words))
        return Routed(None, ev, named_row=(asked.ids[0], title) if len(asked.ids) == 1 else None)

    def _lookup_field(self, asked: _Asked) -> str | None:
        """The field asked of a named item. Named by its key ("PEP 8"), an item's title is a field one may ask for
        ("the title of PEP 8"); of fields named alike, the one asked first ("In what language is X written?")."""
        mentions, item_words = asked.mentions, asked.item_words
        # The title is a field one may ask only of an item named by its key ("the title of PEP 8"), not of one named
        # by its title's words ("Name of the Wind average score" asks the rating).
        by_key = asked.reading is None and key(item_words) not in self.titles
        bonus = {m.field: _QUALIFIER for m in asked.qualifiers}
        target = self._best(mentions, "any", with_title=by_key, bonus=bonus)
        if target is not None:
            top = max(m.score + bonus.get(m.field, 0.0) for m in mentions if m.field == target)
            firsts = [m for m in mentions if m.score + bonus.get(m.field, 0.0) >= top
                      and self.spec.get(m.field) is not None
                      and (m.field != self.spec.title_field or key(item_words) not in self.titles)]
            firsts = [m for m in firsts if by_key or m.field != self.spec.title_field]
            firsts = [m for m in firsts if not any(  # "amazon link": the head noun, not its modifier
                h.field != m.field and h.start >= m.end and _MODIFIER_GAP.fullmatch(asked.qf[m.end : h.start])
                for h in firsts)]
            if firsts:
                target = min(firsts, key=lambda m: m.start).field
        if lx.WHEN_QUESTION.search(asked.qf) and (target is None or self._timeless(target)):
            # "When did the Glass Break come out?", "when was the odyssey written": a time is asked; "written" names
            # the author too, but no author answers "when".
            dated = [f.name for f in self.spec.fields if f.type in {"year", "date"}]
            target = dated[0] if len(dated) == 1 else None if target is None else target
        return target

    def _timeless(self, name: str) -> bool:
        """A field that holds no time: no answer to "when"."""
        f = self.spec.get(name)
        return f is not None and f.type not in {"year", "date"}

    def _no_such_row(self, asked: _Asked, asks_count: bool) -> Routed | None:
        """A field asked of a row named ambiguously, or of a row the index does not hold: said, not guessed."""
        reading, mentions, qf, ev = asked.reading, asked.mentions, asked.qf, asked.ev
        if reading is None:
            return None
        if reading.why == "tie":
            tied = [self.names.names[i] for i in reading.tied[:4]]
            ev.append(t("names {names} equally: not one row").format(names=" / ".join(tied)))
            if mentions and not asks_count and not lx.SUPERLATIVE_ANY.search(qf) and len(reading.tied) <= 4:
                # "the price of the Probe": the Thermo Probe or the Freezer Probe? Asked, not guessed (issue 64).
                return Routed(None, ev, refusal=Refusal("which", "", " / ".join(tied)))
        if reading.unknown and (reading.brand or reading.conflict) and mentions and not asks_count \
                and not lx.SUPERLATIVE_ANY.search(qf):
            # "the price of the Tallow Smoke Alarm": the catalogue's brand and a field, but no row of that name; "the
            # price of the Leak Cable 5 m": a number or another row's word where the closest row has none.
            near = self.names.closest(reading.unknown)
            if near is None:  # nothing shares its letters: the row its words come nearest to, brand and all
                near = self.names.closest(asked.question)
            closest = self.names.names[near] if near is not None else ""
            ev.append(t("names {asked!r}, which no row of the index is").format(asked=reading.unknown))
            return Routed(None, ev, refusal=Refusal("row", reading.unknown, closest))
        return None

    def _unexplained(self, asked: _Asked, unknown: list[str], asks_count: bool) -> Routed:
        """The question names values no field holds: for retrieval, or a row no name matches."""
        routed = Routed(None, [*asked.ev, t("names {value}, which no field of the index holds")
                                           .format(value=', '.join(map(repr, unknown)))],
                        looked_for=", ".join(unknown), looked_in=self._value_fields())
        if asked.mentions and not asks_count and not lx.SUPERLATIVE_ANY.search(asked.qf) and len(unknown) == 1:
            # A name and a field asked of it ("What does the Acme Turbo Blender 3000 cost?"): a row no name
            # matches. Refused by the service when the space holds nothing but the table's rows.
            near = self.names.closest(unknown[0])
            routed.absent_row = Refusal("row", unknown[0], self.names.names[near] if near is not None else "")
        return routed

    def _aggregate(self, asked: _Asked, conds: list[Condition]) -> Routed:
        """Over the rows: a group, an extreme, a count or a list — or nothing the index can answer."""
        qf, mentions, counting, ev, taken = asked.qf, asked.mentions, asked.counting, asked.ev, asked.taken
        subject = self._subject_field(qf, mentions)
        superlative = next(((rx.search(qf), o, k) for rx, o, k in lx.SUPERLATIVES if rx.search(qf)), None)
        per = lx.PER_GROUP.search(qf)
        group_field = self._best(mentions, "categorical")
        if group_field and (lx.GROUP_WORDS.search(qf) or (subject and lx.COUNTING_SUPERLATIVE.search(qf))
                            or (per and counting and any(0 <= m.start - per.end() <= 3 for m in mentions
                                                         if m.field == group_field))):
            grouped = subject or group_field
            order = "asc" if re.search(r"(?<!at )\bleast\b|\bfewest\b|最少|最少见", qf) else "desc"
            ev.append(f"group by {grouped!r} ({'fewest' if order == 'asc' else 'most'} first)")
            return Routed(ToolCall("group", grouped, conds, order), ev)
        if superlative is not None and self._superlative_fits(qf, superlative, mentions):
            match, order, kind = superlative
            field_name = self._superlative_field(mentions, kind, conds)
            if field_name:
                assert match is not None
                ev.append(f"{match.group(0)!r} → top by {field_name!r} ({order})")
                return Routed(ToolCall("top", field_name, conds, order), ev)
        if counting and not conds and lx.ITEM_NOUNS.search(qf):
            rest = self._unexplained_words(qf, [*taken, Span(counting.start(), counting.end())])
            if rest:  # "阿加莎·克里斯蒂有几本书" names someone the index does not hold: not "all books"
                return Routed(None, [*ev, t("asks about {rest!r}, which the index does not hold")
                                           .format(rest='、'.join(rest))],
                              looked_for=self._as_written(asked.question, qf, rest), looked_in=self._value_fields())
        if counting and (conds or lx.ITEM_NOUNS.search(qf)):
            ev.append(f"counting words {counting.group(0)!r}")
            return Routed(ToolCall("count", None, conds), ev)
        if conds and (lx.LIST_QUESTION.search(qf) or lx.ITEM_NOUNS.match(qf.lstrip())):
            ev.append(t("a list of the matching items"))
            return Routed(ToolCall("filter", None, conds), ev)
        return Routed(None, [*ev, t("no count, filter, group, extreme or named item's field asked")],
                      touched=bool(mentions or conds))

    def _superlative_fits(self, qf: str, superlative: tuple[re.Match[str] | None, str, str],
                          mentions: list[Mention]) -> bool:
        """"How long does the battery of the temperature probe last?" asks a duration, not the latest row: a
        closing "last"/"first" is a superlative only in a which-question, and a superlative of a kind (price, time)
        only when the question names no other kind of numeric field (issue 55)."""
        match, _, kind = superlative
        if match is not None and match.group(0).strip(" ?？.").casefold() in {"last", "first"} \
                and not lx.WHICH.search(qf):
            return False
        if kind:
            types = {"money": {"money"}, "time": {"year", "date"}}[kind]
            numeric = [self.spec.get(m.field) for m in mentions]
            named = [f for f in numeric if f is not None and f.numeric]
            if named and not any(f.type in types for f in named):
                return False
        return True

    @staticmethod
    def _as_written(question: str, qf: str, found: list[str]) -> str:
        """The question's own words from the first found word to the last ("斯蒂芬·金写", not "斯蒂芬、金写")."""
        start = qf.find(found[0].casefold())
        end = qf.rfind(found[-1].casefold())
        if 0 <= start <= end:
            return question[start : end + len(found[-1])]
        return "、".join(found)

    def _title(self, doc_id: str) -> str:
        try:
            return self.names.names[self.name_ids.index(doc_id)]
        except ValueError:
            return ""

    def _value_fields(self) -> list[str]:
        return sorted({f for owners in self.values.values() for f, _ in owners} | {self.spec.title_field})

    def _lacking(self, qf: str, taken: list[Span]) -> str:
        """The question's word for an attribute no field holds ("weight", "颜色"), or ""."""
        span = self._lacking_at(qf, taken)
        return qf[span.start : span.end] if span else ""

    def _lacking_at(self, qf: str, taken: list[Span]) -> Span | None:
        latin = _CJK_RUN.sub(lambda m: " " * len(m.group(0)), qf)
        for w in sorted(self.lacking, key=len, reverse=True):
            if _HAS_CJK.search(w):
                at = qf.find(w)
            else:
                m = re.search(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])", latin)
                at = m.start() if m else -1
            if at >= 0 and not any(s.overlaps(at, at + len(w)) for s in taken):
                return Span(at, at + len(w))
        return None

    def _outweighed(self, asked: _Asked, target: str) -> bool:
        """Does the question ask for an attribute no field holds more than it names ``target``? "How much does it
        weigh?" names a price only by its question form; "Who published it?" holds "published" (the year) inside
        its words for the publisher (issue 64)."""
        lack = self._lacking_at(asked.qf, asked.taken)
        if lack is None:
            return False
        named = [m for m in asked.mentions if m.field == target]
        return all(m.asking for m in named) or any(lack.start <= m.start and m.end <= lack.end for m in named)

    def _closest_field(self, asked: str) -> str:
        """The field nearest the asked word by letters ("colours" → "Colour name"); "" when none is near."""
        names = [f.name for f in self.spec.fields if f.name != self.spec.title_field]
        near = NameMatcher(names).closest(asked) if names else None
        return names[near] if near is not None else ""

    @staticmethod
    def _unexplained_words(qf: str, taken: list[Span]) -> list[str]:
        """Content words of a counting question that no field, value, item noun or count word explains."""
        import jieba

        jieba.setLogLevel(60)
        out = []
        pos = 0
        for word in jieba.cut(qf):
            start, pos = pos, pos + len(word)
            w = word.strip(" ?？!！.。,，:：·'\"")
            if not w or any(t.overlaps(start, pos) for t in taken) or lx.ITEM_NOUNS.fullmatch(w):
                continue
            if w in lx.STOPWORDS or w in lx.BARE_COUNT_WORDS or not any(ch.isalnum() for ch in w):
                continue
            if _HAS_CJK.search(w) and all(ch in lx.EXPLAINED_CHARS for ch in w):
                continue
            out.append(w)
        return out

    @staticmethod
    def _unexplained_names(question: str, taken: list[Span]) -> list[str]:
        """Capitalised names the rules matched to nothing ("books by Stephen King" when no author is).

        Counting or listing over the whole table while ignoring a name the user gave would
        answer a different question; such questions go to retrieval instead.
        """
        out = []
        for m in _NAME.finditer(question):
            words = [w for w in m.group(0).split() if w.casefold().strip(".,'’") not in lx.STOPWORDS]
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

    def _superlative_field(self, mentions: list[Mention], kind: str, conds: list[Condition]) -> str | None:
        conditioned = {c.field for c in conds}
        usable = [m for m in mentions if m.field not in conditioned or kind]
        if kind:
            types = {"money": {"money"}, "time": {"year", "date"}}[kind]
            named = [m for m in usable if (f := self.spec.get(m.field)) is not None and f.type in types]
            if named:
                return self._best(named, "numeric")
            fields = [f.name for f in self.spec.fields if f.type in types]
            if fields:
                return fields[0]
        return self._best(usable, "numeric")


# ---- the third pass's readings (issue 64), outside the Router: its size is held (tests/test_limits.py) ----------
def _add_qualified(f: FieldSpec, qualifier_surfaces: dict[str, list[str]],
                   split: list[tuple[str, str, frozenset[str]]]) -> None:
    """A field's qualifier words ("all editions" for "work_ratings_count") and its split names: one of its words
    as written beside another's translation ("goodreads … 编号" for goodreads_book_id)."""
    words = _name_words(f.name)
    for name, said in lx.QUALIFIERS.items():
        if name in words or said & set(words):
            for w in said:
                qualifier_surfaces[w].append(f.name)
    plain = [w for w in words if not w.isdigit() and w not in lx.STOPWORDS]
    for a in plain:
        if len(a) < 3 or a in lx.COUNT_WORDS or _HAS_CJK.search(a) or len(plain) < 2:
            continue
        for b in plain:
            said = frozenset().union(*(ws for ws in lx.CONCEPTS.values() if b in ws)) if b != a else frozenset()
            if said:
                split.append((f.name, a, said - {a}))


def _split(split: list[tuple[str, str, frozenset[str]]], qf: str, latin: str) -> list[Mention]:
    """A field named by one of its words as written and another's translation within a few characters:
    "goodreads 上的编号" is goodreads_book_id's number (issue 64)."""
    out: list[Mention] = []
    for name, word, said in split:
        for s in _starts(word, qf, latin):
            e = s + len(word)
            for w in said:
                for t0 in _starts(w, qf, latin):
                    lo, hi = (e, t0) if t0 >= e else (t0 + len(w), s)
                    if 0 <= hi - lo <= 12:
                        out.append(Mention(name, min(s, t0), max(e, t0 + len(w)), 2.0))
    return out


def _qualifiers(qualifier_surfaces: dict[str, list[str]], qf: str, taken: list[Span]) -> list[Mention]:
    """Qualifier words in the question ("across all editions", 全版): each prefers the fields it qualifies."""
    latin = _CJK_RUN.sub(lambda m: " " * len(m.group(0)), qf)
    out = []
    for surface, fields in qualifier_surfaces.items():
        for s in _starts(surface, qf, latin):
            if not any(t.overlaps(s, s + len(surface)) for t in taken):
                out += [Mention(f, s, s + len(surface), _QUALIFIER) for f in fields]
    return out


def _compounds(surfaces: dict[str, list[tuple[str, float, bool]]], qf: str, taken: list[Span], found: list[Mention],
               many: bool, german: bool) -> list[Mention]:
    """A German compound ends with its head: "Versandgewicht" is a weight, "Verkaufspreis" a price,
    "Textrezensionen" reviews — the longest ending that names a field names it (issue 64)."""
    out: list[Mention] = []
    for tok, s, e in _tokens(qf):
        if len(tok) < 7 or _HAS_CJK.search(tok) or any(x.overlaps(s, e) for x in taken) \
                or any(m.start < e and s < m.end for m in found):
            continue
        head = next((tok[i:] for i in range(2, len(tok) - 3) if tok[i:] in surfaces), None)
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
               for s, owners in surfaces.items() if not _HAS_CJK.search(s))


def _other_kind(foreign: set[str], asked: _Asked, target: str | None) -> str:
    """The question's words for a kind of the target field that the field says it is not: "list price" where the
    table's column is "Selling Price" (its name says which price it holds; a plain "Price" could be any)."""
    if target is None:
        return ""
    said = [w for w in _name_words(target) if w in lx.WEAK_WORDS and w not in lx.STOPWORDS
            and w not in lx.OWN_ITEM_WORDS and w not in {"id", "code", "is", "text"}]
    if not said:
        return ""
    latin = _CJK_RUN.sub(lambda m: " " * len(m.group(0)), asked.qf)
    for w in sorted(foreign, key=len, reverse=True):
        at = next(iter(_starts(w, asked.qf, latin)), -1)
        if at >= 0 and not any(x.overlaps(at, at + len(w)) for x in asked.taken):
            return asked.question[at : at + len(w)]
    return ""
