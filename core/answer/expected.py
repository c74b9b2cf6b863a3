"""What form the answer to a question takes, and whether a sentence holds it — by the question word alone.

"What year did Tesla die?" is answered by a sentence with a year in it, "How many universities …" /
"纽卡斯尔有多少所大学？" by one with a count, "Who …" by one naming someone the question does not. Without a
model this is the cheapest evidence the no-model answer has that a sentence *answers* rather than *mentions*
(measured with bench/eval_answers.py). Forms, not meanings: digits of every script, Chinese numerals, years,
month names; a person is a capitalised name the question does not hold, or a transliterated one ("托马斯·皮凯蒂").
"""

from __future__ import annotations

import re

_ASKS = {
    "year": re.compile(r"\b(?:what|which) (?:year|decade|century)\b|\bwhen\b|\bin what year\b|\bsince when\b|"
                       r"哪一年|哪年|哪个年代|哪个世纪|什么时候|何时|几几年|什么年代|何年|いつ|何年|\bwann\b|"
                       r"\bquand\b|\bcuándo\b|\bin welchem jahr\b", re.I),
    "number": re.compile(r"\bhow (?:many|much|far|old|tall|high|long|big|large|deep|wide|fast|often)\b|"
                         r"\bwhat (?:percentage|percent|proportion|number|amount|fraction)\b|"
                         r"多少|几[个位所名次倍年月天条种家座岁]|百分之几|多大|多高|多长|多远|多重|多少倍|"
                         r"いくつ|何人|何個|何回|wie viele|wie viel|combien|cuántos|cuántas|cuánto", re.I),
    "person": re.compile(r"\bwho\b|\bwhom\b|\bwhose\b|\bwer\b|\bqui\b|\bquién\b|谁|哪位|何人|誰", re.I),
}

_YEAR = re.compile(r"(?<!\d)(?:1[0-9]{3}|20[0-9]{2})(?!\d)|\d{2,4}\s?年|[一二三四五六七八九十〇零]{2,4}年|世纪|"
                   r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|"
                   r"\d{1,2}月|\b\d{1,2}(?:st|nd|rd|th) century\b|\b\d{2,4}s\b", re.I)
_NUMBER = re.compile(r"\d|[一二两三四五六七八九十百千万亿]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                     r"eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half)\b", re.I)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*"
                   # A name transliterated into Chinese or Japanese: given and family names joined by a middle dot.
                   r"|[\u3400-\u9fff\u30a0-\u30ff]{1,8}[·•・][\u3400-\u9fff\u30a0-\u30ff]{1,8}")


def expected(question: str) -> set[str]:
    """The forms the question's word asks for: ``year``, ``number``, ``person`` (none for "what", "why" …)."""
    return {form for form, rx in _ASKS.items() if rx.search(question)}


def holds(form: str, sentence: str, question: str) -> bool:
    """Whether ``sentence`` holds a value of ``form`` that the question itself does not already give."""
    if form == "year":
        return any(m.group(0) not in question for m in _YEAR.finditer(sentence))
    if form == "number":
        return any(m.group(0) not in question for m in _NUMBER.finditer(sentence))
    if form == "person":
        asked = question.casefold()
        return any(m.group(0).casefold() not in asked for m in _NAME.finditer(sentence.strip()))
    return False
