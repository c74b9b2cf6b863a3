"""Does a web sentence state a different value than the space's own sentence about the same thing? (issue 59)

"A sentence that asserts an answer the space's own material contradicts is shown as such." The caller finds the
space's sentences about the same subject by meaning (their stored sentence vectors, services/contradict.py); this
module compares what two such sentences state, without a model and without lists of phrasings:

* **numbers** — each number read with its scale ("1.2 million", "3 万") and its slot: the unit after it ("kg",
  "年", "$" before it) and the word before it. A web number whose slot the space's sentence fills with another
  value, and that equals none of the space's numbers, is a different value ("330 metres" / "324 metres"). Equal
  within the precision written: "about 1.4 million" agrees with "1,412,000", "8,849 m" with "8,848.86 m".
* **names** — the two sentences aligned token by token (difflib); a span replaced by another where each holds one
  run of names (capitalised words inside a sentence) is a different name ("…written by Charles Dickens" / "…by
  Thomas Hardy"); in Chinese and Japanese, a replaced span of two characters or more that ends its clause (where a
  predicate's value stands) or holds a numeral, the two sharing no character ("总部位于上海。" / "…位于北京。").
* **negation** — one sentence holds a negation word the other lacks, in the part where they differ, while the rest
  is the same frame ("is not included" / "is included"). The words are per language in
  resources/contradiction/<language>.json.

Both sentences must be the same statement in the main (``SAME_FRAME`` of the shorter one's tokens shared); two
differences at once (another name *and* another number) mean another subject ("the Fleet plan costs $399" is
not about the Team plan's $129): no contradiction is claimed. The figures on the hand-written pairs are in
bench/README.md (bench/contradiction.py).
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
_TOKEN = re.compile(
    rf"(?P<num>\d+(?:[,.\u00a0\u202f'’](?=\d{{3}}(?!\d))\d{{3}})*(?:[.,]\d+)?)"
    rf"|(?P<cjk>[{_CJK}])"
    rf"|(?P<word>[^\W\d_{_CJK}]+(?:['’][^\W\d_]+)?)"
    r"|(?P<sym>[$€£¥₹%])")
_SENTENCE_START = re.compile(r"(^|[.!?:;]\s+|[\"“«(]\s*)$")
SAME_FRAME = 0.4  # share of the shorter sentence's tokens the two must share for a name or negation to count


@dataclass(frozen=True, slots=True)
class _Lists:
    negations: frozenset[str]  # spaced languages: whole words
    cjk_negations: tuple[str, ...]  # Chinese, Japanese: matched inside the differing text
    multipliers: dict[str, float]
    noun_markers: frozenset[str]  # words after which a capitalised word is a noun, not a name (German)


@functools.cache
def lists() -> _Lists:
    words: set[str] = set()
    cjk: list[str] = []
    multipliers: dict[str, float] = {}
    markers: set[str] = set()
    folder = resources.files("biny.resources").joinpath("contradiction")
    for item in sorted(folder.iterdir(), key=lambda f: f.name):
        if not item.name.endswith(".json"):
            continue
        data = json.loads(item.read_text(encoding="utf-8"))
        (words.update if data.get("words", True) else cjk.extend)(w.casefold() for w in data.get("negations", []))
        multipliers.update({k.casefold(): float(v) for k, v in data.get("multipliers", {}).items()})
        markers.update(w.casefold() for w in data.get("noun_markers", []))
    return _Lists(frozenset(words), tuple(sorted(set(cjk), key=len, reverse=True)), multipliers, frozenset(markers))


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # num | cjk | word | sym
    text: str
    name: bool = False  # a capitalised word inside a sentence (not after a German article)
    end: int = 0  # where it ends in its sentence

    @property
    def key(self) -> str:
        return "<num>" if self.kind == "num" else self.text.casefold()


@dataclass(frozen=True, slots=True)
class Number:
    value: float
    step: float  # the precision it was written with (1,400,000 → 100,000; 3.5 → 0.1)
    unit: str  # the word or symbol after it (or a currency symbol before it)
    before: str  # the word before it
    text: str

    def agrees(self, other: Number) -> bool:
        tolerance = max(self.step, other.step) / 2 + 1e-9 * max(abs(self.value), abs(other.value), 1.0)
        return abs(self.value - other.value) <= tolerance


@dataclass(frozen=True, slots=True)
class Conflict:
    kind: str  # number | name | negation
    web: str  # what the web sentence states
    mine: str  # what the space's sentence states instead


def tokens(text: str) -> list[Token]:
    out: list[Token] = []
    markers = lists().noun_markers
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "word"
        word = m.group()
        name = (kind == "word" and word[:1].isupper() and not _SENTENCE_START.search(text[:m.start()])
                and not (out and out[-1].key in markers))
        out.append(Token(kind, word, name, m.end()))
    return out


def _parse(raw: str) -> tuple[float, float]:
    """A written number's value and the step it was written to: separators of thousands go, a lone ',' or '.'
    before 1–2 or 4+ digits is a decimal mark; a long run of an integer's trailing zeros is its precision."""
    groups = re.split(r"[,.\u00a0\u202f'’]", raw)
    if len(groups) > 1 and len(groups[-1]) != 3:
        whole, frac = "".join(groups[:-1]), groups[-1]
        return float(f"{whole}.{frac}"), 10.0 ** -len(frac)
    digits = "".join(groups)
    zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
    # Only a long run of zeros is a rounding ("1,400,000"); "100 sensors" and the year 2000 are exact.
    return float(digits), 10.0 ** (zeros - 1) if zeros >= 3 else 1.0


def numbers(toks: list[Token]) -> list[Number]:
    scale = lists().multipliers
    out = []
    for i, tok in enumerate(toks):
        if tok.kind != "num":
            continue
        value, step = _parse(tok.text)
        after = i + 1
        if after < len(toks) and toks[after].key in scale:
            factor = scale[toks[after].key]
            value, step, after = value * factor, step * factor, after + 1
        unit = toks[after].key if after < len(toks) and toks[after].kind != "num" else ""
        before = toks[i - 1].key if i and toks[i - 1].kind != "num" else ""
        if before in "$€£¥₹" and before:
            unit = before
        out.append(Number(value, step, unit, before, tok.text))
    return out


def _number_conflict(a: list[Number], b: list[Number]) -> Conflict | None:
    for w in a:
        if any(w.agrees(s) for s in b):
            continue
        slot = [s for s in b if (w.unit and s.unit == w.unit) or (w.before and s.before == w.before)]
        if not slot and len(a) == len(b) == 1:
            slot = b
        if slot:
            return Conflict("number", _shown(w), _shown(slot[0]))
    return None


def _shown(n: Number) -> str:
    """A number as written, with its currency or percent sign (the word after it may be any word: not shown)."""
    return f"{n.unit}{n.text}" if n.unit in ("$", "€", "£", "¥", "₹") else n.text + ("%" if n.unit == "%" else "")


def _spans(web: str, mine: str, ta: list[Token], tb: list[Token]
           ) -> tuple[float, list[tuple[list[Token], list[Token], str, str]]]:
    """How much of the shorter sentence the two share (0–1), and the spans where they differ (a side may be
    empty: a word added or left out), each with the text that follows it in its sentence."""
    matcher = difflib.SequenceMatcher(None, [t.key for t in ta], [t.key for t in tb], autojunk=False)
    shared = sum(block.size for block in matcher.get_matching_blocks())
    spans = [(ta[i1:i2], tb[j1:j2], web[ta[i2 - 1].end:] if i2 > i1 else "", mine[tb[j2 - 1].end:] if j2 > j1 else "")
             for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"]
    return shared / max(1, min(len(ta), len(tb))), spans


_NUMERAL = set("一二三四五六七八九十百千万两零〇")
_CLAUSE_END = re.compile(r"^\s*([，。；：、,.;:!?！？）)」』]|$)")


def _name_run(span: list[Token]) -> list[Token] | None:
    """The one run of name words in a span (short lower-case particles inside it kept: "Guido van Rossum"); None
    when the span holds no run or more than one."""
    runs: list[list[Token]] = []
    current: list[Token] = []
    for i, tok in enumerate(span):
        particle = (tok.kind == "word" and not tok.name and len(tok.text) <= 3 and current
                    and i + 1 < len(span) and span[i + 1].name)
        if tok.name or particle:
            current.append(tok)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs[0] if len(runs) == 1 and len(runs[0]) <= 6 else None


def _cjk_value(span: list[Token], rest: str) -> bool:
    """A Chinese or Japanese span that states a value: two characters or more, ending its clause in its sentence
    (a predicate's value comes last: "总部位于北京。") or holding a numeral ("三个月")."""
    return (len(span) >= 2 and all(t.kind == "cjk" for t in span)
            and (bool(_CLAUSE_END.match(rest)) or any(t.text in _NUMERAL for t in span)))


def _name_conflicts(spans: list[tuple[list[Token], list[Token], str, str]]) -> list[Conflict]:
    out = []
    for a, b, rest_a, rest_b in spans:
        if _cjk_value(a, rest_a) and _cjk_value(b, rest_b):
            if not {t.text for t in a} & {t.text for t in b}:  # 总部 / 总公司: a wording, not another name
                out.append(Conflict("name", _joined(a), _joined(b)))
            continue
        run_a, run_b = _name_run(a), _name_run(b)
        if run_a and run_b and any(t.kind == "word" for t in run_a + run_b):
            out.append(Conflict("name", _joined(run_a), _joined(run_b)))
    return out


def _other_subject(spans: list[tuple[list[Token], list[Token], str, str]]) -> bool:
    """A name replaced anywhere ("北京的人口" / "上海的人口", wherever in the clause it stands)."""
    for a, b, _, _ in spans:
        cjk = len(a) >= 2 and len(b) >= 2 and all(t.kind == "cjk" for t in a + b)
        if cjk and not {t.text for t in a} & {t.text for t in b}:
            return True
    return False


def _joined(span: list[Token]) -> str:
    return ("" if all(t.kind == "cjk" for t in span) else " ").join(t.text for t in span)


def _negated(span: list[Token]) -> bool:
    lst = lists()
    if any(t.key in lst.negations or t.key.endswith("n't") for t in span if t.kind == "word"):
        return True
    text = "".join(t.text for t in span if t.kind == "cjk")
    return any(n in text for n in lst.cjk_negations)


def conflict(web: str, mine: str) -> Conflict | None:
    """What ``web`` states that ``mine`` — a sentence of the space about the same subject — states otherwise;
    None when nothing differs, or when so much differs that they are about different things."""
    ta, tb = tokens(web), tokens(mine)
    shared, spans = _spans(web, mine, ta, tb)
    if shared < SAME_FRAME:
        return None  # not the same statement: which of their values would answer the same thing is unknown
    names = _name_conflicts(spans)
    number = _number_conflict(numbers(ta), numbers(tb))
    if number is not None:
        return None if names or _other_subject(spans) else number  # another name too: another subject
    if len(names) == 1:
        return names[0]
    if names:
        return None
    neg_a = any(_negated(a) for a, *_ in spans)
    neg_b = any(_negated(b) for _, b, *_ in spans)
    if neg_a != neg_b:
        return Conflict("negation", web if neg_a else "", mine if neg_b else "")
    return None
