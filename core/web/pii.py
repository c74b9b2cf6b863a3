"""Personal data masked before anything reaches a model or the review queue (SPEC W6).

E-mail addresses; phone numbers (Google's libphonenumber via ``phonenumbers``: +86 mobiles
and landlines, and international numbers written with their country code); Chinese
resident ID numbers (18 characters whose ISO 7064 MOD 11-2 check character and birth date
are valid); bank card numbers (13–19 digits passing the Luhn check); Chinese person
names where jieba's part-of-speech tagger finds them (``nr``); and English names where a person names
themselves or is named as a contact ("my name is …", "ask for Dr. …", "Regards, …"). Each is replaced by a
bracketed label, so the text keeps its shape and a reader sees what was there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

import phonenumbers

LABELS = {"email": "[email]", "phone": "[phone]", "id": "[ID number]", "card": "[card number]", "name": "[name]"}
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_CN_ID = re.compile(r"(?<![\dA-Za-z])(\d{6})(\d{4})(\d{2})(\d{2})(\d{3})([\dXx])(?![\dA-Za-z])")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"
_CJK = re.compile(r"[\u4e00-\u9fff]")
# jieba tags many ordinary words "nr" (申请人, 银行卡); a name must also open with a common surname.
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡"
    "余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯"
    "龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章"
    "鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴"
)
_COMPOUND_SURNAMES = ("欧阳", "司马", "诸葛", "上官", "东方", "皇甫", "慕容", "令狐", "司徒", "夏侯")
# Regions tried for numbers written without a country code; "+…" numbers parse in any.
_REGIONS = ("CN", "US", "GB", "DE", "FR", "JP")


@dataclass(frozen=True, slots=True)
class Found:
    kind: str
    start: int
    end: int
    text: str


def valid_cn_id(s: str) -> bool:
    m = _CN_ID.fullmatch(s)
    if m is None:
        return False
    try:
        date(int(m.group(2)), int(m.group(3)), int(m.group(4)))
    except ValueError:
        return False
    total = sum(int(c) * w for c, w in zip(s[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == s[17].upper()


def luhn(digits: str) -> bool:
    total, parity = 0, len(digits) % 2
    for i, ch in enumerate(digits):
        d = int(ch)
        if i % 2 == parity:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _phones(text: str) -> list[Found]:
    out: list[Found] = []
    for region in _REGIONS:
        for m in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
            out.append(Found("phone", m.start, m.end, m.raw_string))
    return out


def _looks_like_name(word: str) -> bool:
    if word.startswith(_COMPOUND_SURNAMES):
        return 3 <= len(word) <= 4
    # Reduplicated words ("谢谢") and role nouns ("申请人", "负责人", "工作者") are not names.
    return (2 <= len(word) <= 3 and word[0] in _SURNAMES and word[1] != word[0]
            and word[-1] not in "人者员方们卡号")


def _id_shaped(digits: str) -> bool:
    """18 digits laid out like a resident ID (a birth date inside): never read as a card."""
    if len(digits) != 18:
        return False
    try:
        date(int(digits[6:10]), int(digits[10:12]), int(digits[12:14]))
    except ValueError:
        return False
    return True


# A person naming themselves or being addressed, in English: "my name is Lena Meyer", "call me Tom", "ask for
# Dr. Ana Ruiz", "Regards, Tom Baker". Only behind such words — a capitalised pair alone is as often a place or a
# product ("Old Point Lighthouse"), and a public page's subject ("founded by Mitchell Baker") is its material.
_EN_NAME = re.compile(
    r"(?:\b(?:[Mm]y name is|[Cc]all me|[Aa]sk for|[Ss]peak (?:to|with)|"
    r"[Rr]egards,|[Tt]hanks,|[Ss]incerely,|[Cc]heers,|[Bb]est,)\s+(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)?"
    r"|\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)"
    r"((?:[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)(?:\s+[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?){0,2})")


def _english_names(text: str) -> list[Found]:
    return [Found("name", m.start(1), m.end(1), m.group(1)) for m in _EN_NAME.finditer(text)]


def _names(text: str) -> list[Found]:
    found = _english_names(text)
    if not _CJK.search(text):
        return found
    import jieba
    import jieba.posseg

    jieba.setLogLevel(60)  # its dictionary-loading chatter is not the user's business
    out, pos = [], 0
    for word, flag in jieba.posseg.cut(text):
        start, pos = pos, pos + len(word)
        if flag in {"nr", "nrfg", "nrt"} and _looks_like_name(word):
            out.append(Found("name", start, pos, word))
    return found + out


def find(text: str, *, names: bool = True) -> list[Found]:
    """Every personal-data span, longest first where two overlap."""
    found = [Found("email", m.start(), m.end(), m.group(0)) for m in _EMAIL.finditer(text)]
    found += [Found("id", m.start(), m.end(), m.group(0)) for m in _CN_ID.finditer(text) if valid_cn_id(m.group(0))]
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and luhn(digits) and not _id_shaped(digits):
            found.append(Found("card", m.start(), m.end(), m.group(0)))
    found += _phones(text)
    if names:
        found += _names(text)
    kept: list[Found] = []
    for f in sorted(found, key=lambda f: (-(f.end - f.start), f.start)):
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
    return sorted(kept, key=lambda f: f.start)


def mask(text: str, *, names: bool = True) -> tuple[str, list[Found]]:
    """``text`` with personal data replaced by labels, and what was replaced."""
    found = find(text, names=names)
    out, last = [], 0
    for f in found:
        out += [text[last : f.start], LABELS[f.kind]]
        last = f.end
    return "".join(out) + text[last:], found
