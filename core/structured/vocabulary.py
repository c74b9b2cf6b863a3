"""What a structured index knows, built once per index generation from its spec and table (issue 56).

The words that name each field (its name's words and their synonyms in four languages, a curator's own words, a
numbered field's kind beside its number, a unit's words, qualifiers), the values of the fields one filters on, the
rows' titles as written and shortened, the identifier fields whose values name one row each, and the attributes
the table does not hold. ``reader`` reads a question against it and ``route`` decides the call; nothing here reads
a question.
"""

from __future__ import annotations

import re
from collections import defaultdict

from biny.core.store.structured import QueryTable
from biny.core.structured import lexicon as lx
from biny.core.structured.naming import CJK, HAS_CJK, NameMatcher
from biny.core.structured.spec import FieldSpec, IndexSpec
from biny.core.structured.tools import items_col, q
from biny.core.structured.values import is_id_name

_TOKEN = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+(?:['’][^\W_{CJK}]+)*")
# A trailing e-mail, handle or note in brackets: "Guido van Rossum <guido@python.org>" is also "Guido van Rossum".
_BRACKET_TAIL = re.compile(r"\s*[<(（\[][^<>()（）\[\]]*[>)）\]]\s*$")
_PAREN_TAIL = re.compile(r"\s*[(（\[][^()（）\[\]]*[)）\]]\s*$")
# A question's form ("how much", "wie viel"): it names a field less than a word for the field does.
ASKING = re.compile(r"(?:how|what|which|wie|was|welche[rs]?|wann|wer)\s")
_MAX_VALUES = 50_000  # distinct values or list items of one field kept for matching
# What a field's own name (or a curator's word for it) scores as a mention, against 1.0 for a synonym's word and
# _ASKING_SCORE for a question's form: the name names its field first. No measurement is recorded.
_NAME_SCORE = 3.0
_ASKING_SCORE = 0.6
# A text field is no category to filter on when it has more distinct values than half its rows and this many more:
# nearly every row has its own. The slack keeps a small table's fields. No measurement is recorded.
_CATEGORY_SLACK = 50
# An identifier or integer field is a key when nine in ten of its values or more name one document each.
_KEY_DISTINCT = 0.9
# A field is a language when this share of its values open with a language code ("en-US"), or its name says so.
_LANGUAGE_SHARE = 0.8
# Only a word longer than these is read as a plural: "pies" is "pie", not "py"; "gas" and "yes" stay as written.
_IES_PLURAL_OVER = 4
_S_PLURAL_OVER = 3
# A field name's word of fewer letters ("id") is not read beside another's translation: no measurement is recorded.
_SPLIT_WORD_MIN = 3


class Vocabulary:
    """The index's words, built once: surfaces of every field, its values, its items' titles and keys."""

    def __init__(self, spec: IndexSpec, table: QueryTable) -> None:
        self.spec = spec
        # surface → (field, score, countish)
        self.surfaces: dict[str, list[tuple[str, float, bool]]] = defaultdict(list)
        # Fields numbered within a kind ("ratings_5", "isbn13"): the kind's words, the number, countish.
        self.numbered: list[tuple[str, frozenset[str], int, bool]] = []
        # Surfaces that are a field's unit: named only when asked (the reader's _UNIT_ASKED).
        self.unit_words: set[str] = set()
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
        held = set(self.surfaces) | set(self.unindexed) | {w for f in spec.fields for w in name_words(f.name)}
        held_words = set().union(*(ws for ws in lx.CONCEPTS.values() if ws & held))
        # A word of a concept the table holds is never lacking through another concept: 编号 is a SKU's number
        # as well as an identifier.
        self.lacking = {w: c for c, ws in lx.CONCEPTS.items() if not ws & held for w in ws if w not in held_words}


    # ---- building ----------------------------------------------------------------------------
    def add_synonyms(self, name: str, extra: list[str]) -> None:
        """A curator's own words for a field (stored with the index spec): they name it as its name does."""
        f = self.spec.get(name)
        if f is None:
            return
        countish = f.numeric and any(w in lx.COUNT_WORDS for w in name_words(f.name))
        for w in extra:
            k = key(w)
            if k and (name, _NAME_SCORE, countish) not in self.surfaces[k]:
                self.surfaces[k].append((name, _NAME_SCORE, countish))
                self.synonyms.setdefault(name, []).append(w)

    def _add_surfaces(self, f: FieldSpec) -> None:
        words = name_words(f.name)
        countish = f.numeric and any(w in lx.COUNT_WORDS for w in words)
        self.surfaces[key(f.name)].append((f.name, _NAME_SCORE, countish))
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
        unit = set(name_words(_PAREN_TAIL.sub("", f.name))) if _PAREN_TAIL.search(f.name) else set(words)
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
                if w in group or _singular(w) in group or any(g in w for g in group if HAS_CJK.search(g)):
                    forms |= group
        for s in forms:
            if s and s != key(f.name):
                # A question's form ("how much", "wie viel", "what kind") names a field less than a word for it:
                # "How much does the Mikasa ball weigh?" asks the weight.
                self.surfaces[s].append((f.name, _ASKING_SCORE if ASKING.match(s) else 1.0, countish))

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
        self.cjk_titles = [k for k in self.titles if HAS_CJK.search(k)]
        for f in spec.fields:
            if f.name == spec.title_field or f.type not in {"text", "list"}:
                continue
            col = items_col(f.name) if f.type == "list" else f.name
            sql = (f"SELECT DISTINCT unnest({q(col)}) FROM idx" if f.type == "list"
                   else f"SELECT DISTINCT {q(col)} FROM idx WHERE {q(col)} IS NOT NULL")
            distinct = [str(r[0]) for r in table.query(sql + f" LIMIT {_MAX_VALUES + 1}")]
            if len(distinct) > _MAX_VALUES or (f.type == "text" and len(distinct) > 0.5 * len(table) + _CATEGORY_SLACK):
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
        self.cjk_values = [k for k in self.values if HAS_CJK.search(k)]

    def _load_keys(self, table: QueryTable) -> None:
        """Identifier and integer fields whose values name one document each (nine in ten distinct or more)."""
        for f in self.spec.fields:
            if f.name == self.spec.title_field or f.type not in {"identifier", "integer"}:
                continue
            by_value: dict[str, list[str]] = defaultdict(list)
            for doc_id, value in table.query(f"SELECT doc_id, {q(f.name)} FROM idx WHERE {q(f.name)} IS NOT NULL"):
                text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
                by_value[key(text)].append(doc_id)
            if by_value and len(by_value) >= _KEY_DISTINCT * sum(map(len, by_value.values())):
                self.keyed[f.name] = dict(by_value)

    def _language_aliases(self, f: FieldSpec, distinct: list[str]) -> None:
        prefixes = [v.split("-")[0].casefold() for v in distinct]
        known = sum(p in lx.LANGUAGE_NAMES for p in prefixes)
        if not distinct or (known < _LANGUAGE_SHARE * len(distinct) and "lang" not in f.name.casefold()
                            and "语" not in f.name):
            return
        by_name: dict[str, list[str]] = defaultdict(list)
        for v, p in zip(distinct, prefixes, strict=True):
            for name in lx.LANGUAGE_NAMES.get(p, ()):
                by_name[name].append(v)
        for name, codes in by_name.items():
            self.values[key(name)].append((f.name, sorted(codes)))

    # ---- what the index says of a row or a field ---------------------------------------------
    def title(self, doc_id: str) -> str:
        try:
            return self.names.names[self.name_ids.index(doc_id)]
        except ValueError:
            return ""

    def value_fields(self) -> list[str]:
        return sorted({f for owners in self.values.values() for f, _ in owners} | {self.spec.title_field})

    def closest_field(self, asked: str) -> str:
        """The field nearest the asked word by letters ("colours" → "Colour name"); "" when none is near."""
        names = [f.name for f in self.spec.fields if f.name != self.spec.title_field]
        near = NameMatcher(names).closest(asked) if names else None
        return names[near] if near is not None else ""

    def categorical(self, name: str) -> bool:
        f = self.spec.get(name)
        return f is not None and f.type in {"text", "list"} and name != self.spec.title_field

    def timeless(self, name: str) -> bool:
        """A field that holds no time: no answer to "when"."""
        f = self.spec.get(name)
        return f is not None and f.type not in {"year", "date"}



def key(text: str) -> str:
    """Punctuation- and case-insensitive form for matching names and values."""
    return " ".join(m.group(0) for m in _TOKEN.finditer(text.casefold().replace("’", "'")))


def tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def name_words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return [t for t, _, _ in tokens(spaced.casefold())]


def _singular(w: str) -> str:
    if len(w) > _IES_PLURAL_OVER and w.endswith("ies"):
        return w.removesuffix("ies") + "y"
    if len(w) > _S_PLURAL_OVER and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def _add_qualified(f: FieldSpec, qualifier_surfaces: dict[str, list[str]],
                   split: list[tuple[str, str, frozenset[str]]]) -> None:
    """A field's qualifier words ("all editions" for "work_ratings_count") and its split names: one of its words
    as written beside another's translation ("goodreads … 编号" for goodreads_book_id)."""
    words = name_words(f.name)
    for name, said in lx.QUALIFIERS.items():
        if name in words or said & set(words):
            for w in said:
                qualifier_surfaces[w].append(f.name)
    plain = [w for w in words if not w.isdigit() and w not in lx.STOPWORDS]
    for a in plain:
        if len(a) < _SPLIT_WORD_MIN or a in lx.COUNT_WORDS or HAS_CJK.search(a) or len(plain) < 2:
            continue
        for b in plain:
            said = frozenset().union(*(ws for ws in lx.CONCEPTS.values() if b in ws)) if b != a else frozenset()
            if said:
                split.append((f.name, a, said - {a}))
