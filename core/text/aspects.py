"""Aspects: what a passage covers and what a question asks about (SPEC R3b).

Format aspects (price, duration, contact) are recognised by their written form;
topic aspects (refund, compliance, trial, integration) by topic words per language.
Chunks also carry script marks (``script:han`` …), stored like aspects.
"""

from __future__ import annotations

import re

from biny.core.text.scripts import scripts_of
from biny.core.text.terms import fold

_CURRENCY = re.compile(
    r"[$€£¥￥₩₹]\s?\d|\d[\d,.]*\s?(?:USD|EUR|GBP|CNY|RMB|JPY|KRW|CHF|元|円|圆|块|美元|欧元|英镑|日元|dollars?|euros?)"
    r"|(?:USD|EUR|GBP|CNY|RMB|JPY|CHF)\s?\d",
    re.I,
)
# A number and its unit of time, written apart, together or joined as an adjective ("a 14-day trial", "eine
# 30-tägige Frist"); in Chinese also with Chinese numerals ("提前三十日", "不超过二年", "六个月"), as laws write them —
# a month there only as 个月: 一月 is January, and 日 after 月 a date.
_CN_COUNT = "零〇一二两三四五六七八九十百千"
_TIME_UNIT = re.compile(
    r"\d+(?:[.,]\d+)?[\s-]?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?"
    r"|秒|分钟|小时|天|日|周|星期|个月|月|年|時間|分間|週間|か月|ヶ月|Sekunden|Minuten|Stunden|Tage?n?|Wochen?|Monate?n?"
    r"|Jahre?n?|tägig|wöchig|monatig|jährig|segundos?|minutos?|horas?|días?|semanas?|meses|años?|jours?|semaines?|mois"
    r"|ans|heures?)"
    rf"|(?<![月{_CN_COUNT}])[{_CN_COUNT}]+(?:个?小时|个?工作日|分钟|天|日|个月|周年|周|年)",
    re.I,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://\S+|www\.\S+")
_PHONE = re.compile(r"(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,4}\)[\s-]?)?\d{3,4}[\s-]\d{3,4}(?:[\s-]\d{2,4})?")

# Topic aspects have no format: the signal is the topic word itself, per language.
TOPICS: dict[str, tuple[str, ...]] = {
    "refund": ("refund", "money back", "reimburse", "退款", "退费", "退货", "返金", "払い戻し", "erstattung",
               "rückerstattung", "reembolso", "devolución", "rembourse", "환불"),
    "compliance": ("complian", "gdpr", "regulat", "certif", "hipaa", "soc 2", "iso 27001", "合规", "监管", "认证",
                   "コンプライアンス", "準拠", "datenschutz", "konform", "cumplimiento", "conformité", "규정"),
    "trial": ("trial", "free test", "试用", "免费试", "体验期", "トライアル", "試用", "無料体験", "testphase",
              "testversion", "prueba gratuita", "essai", "체험"),
    "integration": ("integrat", "api", "webhook", "plugin", "connector", "mqtt", "sdk", "集成", "对接", "接口", "連携",
                    "統合", "schnittstelle", "integración", "intégration", "연동"),
}

# What a question asks about, by language.
_ASKS = {
    "price": re.compile(r"price|cost|how much|fee|charge|pay|pricing|价格|价钱|多少钱|费用|收费|售价|月费|年费|"
                        r"料金|値段|いくら|価格|preis|kosten|kostet|precio|cuesta|prix|coûte|가격|요금", re.I),
    "duration": re.compile(r"how long|how many (?:days|months|years|hours|weeks)|duration|last|lasts|period|"
                           r"多久|多长时间|几天|几个月|几年|期限|时长|有效期|どのくらい|何日|何年|期間|wie lange|dauer|"
                           r"cuánto tiempo|durée|combien de temps|얼마나", re.I),
    "contact": re.compile(r"contact|e-?mail|phone|call|reach|address|联系|电话|邮箱|邮件|地址|連絡|電話|メール|kontakt|"
                          r"telefon|contacto|correo|joindre|연락", re.I),
}


def aspects_of(text: str) -> set[str]:
    """Aspects a chunk covers (stored at ingest), and the scripts it is written in."""
    out: set[str] = {f"script:{s}" for s in scripts_of(text)}
    if _CURRENCY.search(text):
        out.add("price")
    if _TIME_UNIT.search(text):
        out.add("duration")
    if _EMAIL.search(text) or _URL.search(text) or _PHONE.search(text):
        out.add("contact")
    low = fold(text)
    for topic, words in TOPICS.items():
        if any(w in low for w in words):
            out.add(f"topic:{topic}")
    return out


def asked_aspects(question: str) -> set[str]:
    """Aspects a question asks about (format aspects and topic aspects)."""
    out = {name for name, rx in _ASKS.items() if rx.search(question)}
    low = fold(question)
    for topic, words in TOPICS.items():
        if any(w in low for w in words):
            out.add(f"topic:{topic}")
    return out


ASPECT_WORDS = {
    "price": "price cost 价格 费用",
    "duration": "duration how long 期限 时间",
    "contact": "contact email phone 联系 邮箱 电话",
}

