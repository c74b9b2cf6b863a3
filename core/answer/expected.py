"""Whether a sentence holds what the question asks for — the form, the value, the unit, the version — by its
writing alone. What the question asks is read once, into ``Question.asks`` (text/asks.py).

"What year did Tesla die?" is answered by a sentence with a year in it, "How many universities …" /
"纽卡斯尔有多少所大学？" by one with a count, "Who …" by one naming someone the question does not. Without a
model this is the cheapest evidence the no-model answer has that a sentence *answers* rather than *mentions*
(measured with bench/eval_answers.py). Forms, not meanings: digits of every script, Chinese numerals, years,
month names; a person is a capitalised name the question does not hold, or a transliterated one ("托马斯·皮凯蒂").
"""

from __future__ import annotations

import re

from biny.core.text.asks import PERCENT, UNITS

_YEAR = re.compile(r"(?<!\d)(?:1[0-9]{3}|20[0-9]{2})(?!\d)|\d{2,4}\s?年|[一二三四五六七八九十〇零]{2,4}年|世纪|"
                   r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|"
                   r"\d{1,2}月|\b\d{1,2}(?:st|nd|rd|th) century\b|\b\d{2,4}s\b", re.I)
_NUMBER = re.compile(r"\d|[一二两三四五六七八九十百千万亿]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                     r"eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half)\b", re.I)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*"
                   # A name transliterated into Chinese or Japanese: given and family names joined by a middle dot.
                   r"|[\u3400-\u9fff\u30a0-\u30ff]{1,8}[·•・][\u3400-\u9fff\u30a0-\u30ff]{1,8}")


# A name written as code: quoted in backticks, or shaped as no word is — snake_case, camelCase / PascalCase with an
# inner capital, CAPITALS joined by - or _ ("EXTERNALLY-MANAGED"), a dotted path ("starlette.background"), a
# command-line flag ("--workers").
_CODE = re.compile(r"`+([^`\n]{1,80})`+|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b"
                   r"|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|\b[A-Z]{2,}(?:[-_][A-Z0-9]+)+\b|\b[a-z_]+(?:\.[a-z_]+)+\b"
                   r"|(?<![\w-])--[a-z][\w-]+")


def holds(form: str, sentence: str, question: str) -> bool:
    """Whether ``sentence`` holds a value of ``form`` that the question itself does not already give."""
    if form == "year":
        return any(m.group(0) not in question for m in _YEAR.finditer(sentence))
    if form == "number":
        return any(m.group(0) not in question for m in _NUMBER.finditer(sentence))
    if form == "person":
        asked = question.casefold()
        return any(m.group(0).casefold() not in asked for m in _NAME.finditer(sentence.strip()))
    if form == "code":
        asked = question.casefold()
        return any((m.group(1) or m.group(0)).strip().casefold() not in asked for m in _CODE.finditer(sentence))
    return False


# The forms that are values — a count, an amount, a length, a date. A question asking one is answered only by a
# sentence giving one; an answer without any is a mention of the subject, not its answer (issue 55: "女职工产假多少天"
# over the labour law's list of protected periods, "ハブの重さとサイズを教えて" with "Please include the hub's serial
# number").
VALUE_FORMS = frozenset({"year", "number", "version"})
# Numbers that label a place rather than give a value: a law's 第四十八条 / 第一章, a list's （三） or "(2)", a
# numbered heading's or item's leading "3." / "2)", a reference to an article, section or page. Their digits say
# nothing of how many or how much.
_LABEL = re.compile(r"第[零〇一二两三四五六七八九十百千\d]+[条章节款项编部篇回]"
                    r"|[（(][零〇一二两三四五六七八九十百千\d]{1,4}[）)]"
                    r"|^\s*\d{1,3}(?:\.\d{1,3})*[.)、]\s"
                    r"|(?:\b(?:Article|Art\.|Section|Chapter|Page|p\.|PEP|RFC|Figure|Fig\.|Table|Step)|§)\s*\d+[\w.]*"
                    # A cross-reference in reStructuredText or Sphinx (":pep:`484`", ":ref:`style <7>`"): a name.
                    r"|:[\w-]+(?::[\w-]+)?:\s?`[^`]*`",
                    re.I)
# A value written in Chinese numerals: two of them or more ("九十八", "三十"), or one with its measure ("三日",
# "两倍", "五个"). A lone 一 is mostly a word's part ("一方", "统一", "一般"), not a count.
_ZH_NUMERALS = "零〇一二两三四五六七八九十百千万亿"
_ZH_VALUE = re.compile(rf"[{_ZH_NUMERALS}]{{2,}}|[{_ZH_NUMERALS}](?:个|天|日|年|月|周|星期|小时|分钟|秒|倍|次|名|人|元|"
                       rf"岁|米|公里|千克|克|度|层|页|项|份|家|所|位|种|件|台|张|本|条|行|级|成)|百分之")
# Digits, and numbers written as words in English, German, French and Spanish ("sieben Tage").
_VALUE_NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
                           r"forty|fifty|hundred|thousand|million|billion|dozen|half|once|twice|single|double|"
                           r"zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|zwanzig|dreißig|hundert|tausend|"
                           r"deux|trois|quatre|cinq|sept|huit|neuf|dix|onze|douze|vingt|trente|mille|"
                           r"dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|doce|veinte|treinta|cien|mil)s?\b", re.I)


# A version written out: a dotted number ("3.8", "5.3"), "v2", or a whole number after a name ("Python 3",
# "Bluetooth 5", "HTTP/2").
_VERSION_GIVEN = re.compile(r"(?<![\d.])\d+(?:\.\d+)+(?![\d.]*\d)|\bv\d+\b|\b[A-Z][A-Za-z]+(?: |/)\d+\b")


# A name with digits in it — a part, a model, a chip ("CH32V003F4P6", "ESP32-C6", "TA-210"): its digits are no value.
_CODED_NAME = re.compile(r"\b[A-Za-z][\w-]*\d[\w-]*")


def gives_value(form: str, sentence: str, question: str) -> bool:
    """Whether ``sentence`` gives a value of ``form`` (``VALUE_FORMS``) the question does not — labels and names
    with digits aside."""
    if form == "version":  # (a part number's digits are no version, and no version is read in one)
        return any(m.group(0) not in question for m in _VERSION_GIVEN.finditer(_LABEL.sub(" ", sentence)))
    text = _CODED_NAME.sub(" ", _LABEL.sub(" ", sentence))
    if form != "number":
        return holds(form, text, question)
    return any(m.group(0) not in question for rx in (_VALUE_NUMBER, _ZH_VALUE) for m in rx.finditer(text))


# How a number in an asked unit is written (text/asks.py ``UNITS``): with the unit's symbol (a prefix allowed: mW,
# kHz, GB) or its name; a percentage in its own forms ("9 %", 百分之一百五十, "50 percent", 三割).
_UNIT_GIVEN = {u: re.compile(rf"\d(?:[\d.,]*\d)?\s?(?:{symbol}|(?i:{names}))")
               for u, (_, symbol, names) in UNITS.items()}
_UNIT_GIVEN[PERCENT] = re.compile(r"\d\s?[%％‰]|\d\s?(?:percent|per cent|prozent|パーセント)|"
                                  r"百分之[零〇一二三四五六七八九十百千\d]|[一二三四五六七八九十]割", re.I)


def gives_unit(unit: str, sentence: str) -> bool:
    """Whether ``sentence`` gives a number in ``unit``."""
    return _UNIT_GIVEN[unit].search(sentence) is not None


def holds_version(version: str, text: str) -> bool:
    """Whether ``text`` writes ``version`` or a version within it ("3.15" in "3.15.0a1", never in "3.150")."""
    return re.search(rf"(?<![\d.]){re.escape(version)}(?!\d)", text) is not None


# A word, or a number with its separators ("1,290", "1.8"): a count is one whose first letter ``_VALUE_NUMBER`` reads.
_TOKEN = re.compile(r"[^\W_][\w'’.,-]*")
_HAN = re.compile(r"[\u4e00-\u9fff]")  # a thing counted, asked in Chinese
# A number near a Chinese thing counted: digits, or Chinese numerals as a value (``_ZH_VALUE``).
_ZH_COUNT = re.compile(rf"\d|{_ZH_VALUE.pattern}")
# How many characters apart a Chinese count and what it counts stand ("最多可供 20 位用户", "用户数上限为 20"), within
# one clause.
_CLAUSE_END = re.compile(r"[，,。；;：:！？!?、]")
_COUNT_SPAN_HAN = 6
# How many words apart a count and what it counts stand: "up to 20 users", "users: 20", "20 alert rules", "the number
# of users is limited to 20".
_COUNT_SPAN = 4


def counts(counted: tuple[str, ...], sentence: str) -> bool:
    """Whether ``sentence`` gives a number of what the question counts (text/asks.py ``counted``): a number with one
    of those words, or an inflection of one ("user" / "users", "Sensor" / "Sensoren"), at most ``_COUNT_SPAN`` words
    away — in Chinese, the thing written at most ``_COUNT_SPAN_HAN`` characters from a number ("20位用户",
    "用户上限为20"). Labels and names with digits are no count."""
    text = _CODED_NAME.sub(" ", _LABEL.sub(" ", sentence))
    if any(_HAN.match(c) for word in counted for c in word[:1]):
        for m in (m for word in counted for m in re.finditer(re.escape(word), text)):
            before = _CLAUSE_END.split(text[max(0, m.start() - _COUNT_SPAN_HAN): m.start()])[-1]
            after = _CLAUSE_END.split(text[m.end(): m.end() + _COUNT_SPAN_HAN])[0]
            # (with the thing itself: 二年 is a count as 二 alone is not)
            if _ZH_COUNT.search(before + m.group(0)) or _ZH_COUNT.search(m.group(0) + after):
                return True
        return False
    words = [m.group(0) for m in _TOKEN.finditer(text)]
    folded = [w.casefold().strip("'’.,-") for w in words]
    for i, w in enumerate(words):
        if not _VALUE_NUMBER.match(w):
            continue
        near = folded[max(0, i - _COUNT_SPAN): i + _COUNT_SPAN + 1]
        if any(_inflected(n, c) for n in near for c in counted):
            return True
    return False


# The shortest word read with its inflections: "man" / "men" are one, "a" / "as" / "an" are not.
_INFLECTED_MIN = 3


def _inflected(word: str, of: str) -> bool:
    """One word an inflection of the other: the shorter one all but its last letter the longer's start, at most two
    letters added ("user" / "users", "sensor" / "sensoren", "city" / "cities")."""
    if word == of:
        return True
    short, long_ = sorted((word, of), key=len)
    return len(short) >= _INFLECTED_MIN and len(long_) - len(short) <= 2 and long_.startswith(short[:-1])
