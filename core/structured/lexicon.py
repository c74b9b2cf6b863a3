"""Words that name catalogue fields and ask for tools, in English and Chinese (routing rules).

Field names are matched by their own words first; these groups add the everyday words
people use for the same attribute ("cheapest" for a price, "作者" for authors). A
group applies to a field when one of the field name's words is in it, so the lexicon
works for any catalogue whose headers use common words, not one dataset's columns.
"""

from __future__ import annotations

import re
from importlib import resources

# Column names that name each row (its title), best first: shared by row ingest and the proposer.
TITLE_NAMES = ("title", "name", "product name", "item name", "标题", "名称", "书名", "品名", "题名", "名字")

SYNONYM_GROUPS: tuple[frozenset[str], ...] = tuple(frozenset(g) for g in (
    {"author", "writer", "written", "wrote", "作者", "著者", "作家", "写的", "所著"},
    {"year", "published", "publication", "released", "release", "出版", "年份", "年代", "出版年", "发行", "出版年份"},
    {"rating", "rated", "score", "stars", "评分", "评价", "得分", "打分", "星级"},
    {"price", "cost", "costs", "priced", "cheap", "cheaper", "cheapest", "expensive", "价格", "价钱", "售价",
     "多少钱", "便宜", "贵", "定价"},
    {"language", "lang", "语言", "语种"},
    {"category", "categories", "genre", "genres", "类别", "分类", "类目", "门类", "品类"},
    {"brand", "maker", "manufacturer", "品牌", "厂商", "制造商", "厂家"},
    {"title", "标题", "书名", "题名", "名称"},
    {"url", "link", "website", "链接", "网址"},
    {"image", "picture", "photo", "cover", "图片", "图像", "封面", "照片"},
    {"isbn", "书号"},
    {"review", "reviews", "评论", "书评"},
    {"weight", "重量"},
    {"stock", "inventory", "库存"},
    {"color", "colour", "颜色"},
    {"size", "dimensions", "尺寸", "大小"},
    {"date", "created", "日期", "创建", "创建于", "建立"},
    {"status", "状态"},
    {"edition", "editions", "版本"},
    {"page", "pages", "页数"},
    {"model", "型号"},
    {"quantity", "数量"},
))
# Per-language synonym files (resources/fields/<lang>.txt, "concept: word, word, a phrase"): what people call a
# field in English, Chinese, German and Japanese ("how much", 多少钱, Was kostet, 値段 for a price).
FIELD_LANGUAGES = ("en", "zh", "de", "ja")


def _load_concepts(qualifiers: bool = False) -> dict[str, frozenset[str]]:
    """Concept → its words in every language; ``qualifiers``: the concepts written ``+name`` instead (words that say
    which of the fields named alike, never a field alone: "all editions" for a field named "work …")."""
    out: dict[str, set[str]] = {}
    for lang in FIELD_LANGUAGES:
        text = resources.files("biny.resources").joinpath(f"fields/{lang}.txt").read_text("utf-8")
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or ":" not in line:
                continue
            concept, words = line.split(":", 1)
            if concept.strip().startswith("+") != qualifiers:
                continue
            said = [w.strip().casefold() for w in words.split(",") if w.strip()]
            out.setdefault(concept.strip(), set()).update(said)
            if said and not qualifiers:
                _FIRST.setdefault(lang, {}).setdefault(concept.strip(), said[0])
    return {c: frozenset(ws) for c, ws in out.items()}


# language → concept → the first word its line gives: what a refusal calls the concept ("weight", 重量, Gewicht, 重さ).
_FIRST: dict[str, dict[str, str]] = {}


def concept_of(word: str) -> str:
    """The concept a word of the synonym files stands for ("weigh" → "weight", 多少钱 → "price"), or ""."""
    w = word.strip().casefold()
    return next((c for c, ws in CONCEPTS.items() if w in ws), "")


def said_as(concept: str, lang: str) -> str:
    """A concept as a reader of ``lang`` names it: the first word of its line in that language's file (German nouns
    capitalised), else the English one, else the concept's own name."""
    word = _FIRST.get(lang, {}).get(concept) or _FIRST.get("en", {}).get(concept) or concept
    return word[:1].upper() + word[1:] if lang == "de" and word else word


# concept → its words in every language; a field takes a concept when one of its name's words is among them.
CONCEPTS: dict[str, frozenset[str]] = _load_concepts()
# Qualifier → its words ("+work": "all editions", 全版, "alle Ausgaben"); a field whose name has the qualifier's name
# or one of its words ("work_ratings_count") is preferred among fields named alike when the question says them.
QUALIFIERS: dict[str, frozenset[str]] = {c.lstrip("+"): ws for c, ws in _load_concepts(qualifiers=True).items()}
# Words of a field's name for the catalogue's own items: a count of them in one row ("books_count" in a table of
# books) counts the row's editions or versions, not rows.
OWN_ITEM_WORDS = frozenset({"book", "books", "item", "items", "product", "products", "record", "records", "title",
                            "titles", "work", "works", "entry", "entries", "edition", "editions"})
# The older in-code groups, each merged with the concepts it shares a word with (one group per attribute).
SYNONYM_GROUPS = tuple(g.union(*(c for c in CONCEPTS.values() if c & g)) for g in SYNONYM_GROUPS) + tuple(
    c for c in CONCEPTS.values() if not any(c & g for g in SYNONYM_GROUPS))

# Words of a field name that make it a count of something ("ratings_count", "评分人数").
COUNT_WORDS = frozenset({"count", "counts", "number", "num", "total", "人数", "数量", "次数"})
# Words of a field name too generic to name it on their own.
WEAK_WORDS = frozenset({"average", "avg", "mean", "original", "the", "of", "id", "code", "work", "text", "small",
                        "large", "best", "goodreads", "is", "list", "selling", "product", "item", "details",
                        "description", "info", "specification", "technical", "uniq", "unique",
                        # the catalogue's own items: "which book…" names the row, not a "book_id" field
                        "book", "books", "record", "records", "entry", "entries", "row", "rows", "document",
                        "documents", "items"})

COUNT_QUESTION = re.compile(
    r"\bhow many\b|\bnumber of\b|\bcount\b|\bin total\b|多少|几[本个部种位条家款件项]?|数量|总共|一共|共有", re.I)
# A question asking how many (in any of the four languages): of fields named alike, it asks the count ("How many
# people rated X?" asks ratings_count, not average_rating). "多少钱" asks a price, not a number of things.
MANY_QUESTION = re.compile(
    r"\bhow many\b|\bnumber of\b|\bcount of\b|\bwie viele\b|\bwieviele\b|\banzahl\b"
    r"|多少[人个条次本位份种家款件项]|几[个条次位人本]|何人|何件|何個|何回|いくつ|件数", re.I)
# Number words next to a numbered field's word ("five-star", 五星, "Fünf-Sterne"): 1 to 10.
NUMBER_WORDS: dict[str, int] = {w: i + 1 for ws in (
    "one two three four five six seven eight nine ten".split(),
    "eins zwei drei vier fünf sechs sieben acht neun zehn".split(),
    list("一二三四五六七八九十")) for i, w in enumerate(ws)} | {"ein": 1, "eine": 1, "两": 2}
# A unit in a field's name ("Range (m)", "Battery life (months)") and the words a question uses for it ("how many
# meters", 几个月): they name that field.
UNIT_WORDS: dict[str, frozenset[str]] = {u: frozenset(ws) for u, ws in {
    "m": {"meter", "meters", "metre", "metres", "米", "メートル"},
    "km": {"kilometer", "kilometers", "kilometre", "kilometres", "km", "公里", "キロ"},
    "cm": {"centimeter", "centimeters", "centimetre", "centimetres", "厘米", "センチ"},
    "mm": {"millimeter", "millimeters", "millimetre", "millimetres", "毫米", "ミリ"},
    "kg": {"kilogram", "kilograms", "kilo", "kilos", "公斤", "千克", "キロ"},
    "g": {"gram", "grams", "gramm", "克", "グラム"},
    "months": {"month", "months", "monat", "monate", "monaten", "个月", "か月", "ヶ月", "カ月"},
    "years": {"year", "years", "jahr", "jahre", "jahren", "年间", "年間"},
    "days": {"day", "days", "tag", "tage", "tagen", "天", "日間"},
    "hours": {"hour", "hours", "stunde", "stunden", "小时", "時間"},
    "minutes": {"minute", "minutes", "minuten", "分钟", "分間"},
    "h": {"hour", "hours", "stunde", "stunden", "小时", "時間"},
    "lb": {"pound", "pounds", "lbs", "磅", "ポンド"},
    "in": {"inch", "inches", "zoll", "英寸", "インチ"},
}.items()}
LIST_QUESTION = re.compile(
    r"\bwhich\b|\bwhat\b|\blist\b|\bshow\b|\bname\b|\bfind\b|\bgive me\b|\benumerate\b"
    r"|哪些|列出|列举|找出|有哪|是哪|给出", re.I)
GROUP_WORDS = re.compile(
    r"\bmost (?:common|frequent|popular|often)\b|\bleast (?:common|frequent)\b|\bmost (?:represented)\b"
    r"|最常见|最常出现|出现最多|出现次数最多|最少见", re.I)
PER_GROUP = re.compile(r"\b(?:per|each|every|by)\b|每个|每种|每一|各个|各|按", re.I)
WHICH = re.compile(
    r"\b(?:which|what|who)\b(?:\s+(?:is|are|was|were))?(?:\s+the)?|哪个|哪位|哪种|哪一|哪家|哪类|哪|谁", re.I)

# Superlatives: (pattern, order, implied field kind) — kind: "" any numeric field, "money", "time".
SUPERLATIVES: tuple[tuple[re.Pattern[str], str, str], ...] = tuple((re.compile(p, re.I), o, k) for p, o, k in (
    (r"\bcheapest\b|\bleast expensive\b|\blowest[- ]priced\b|最便宜|价格最低|最低价|售价最低", "asc", "money"),
    (r"\bmost expensive\b|\bpriciest\b|\bhighest[- ]priced\b|最贵|价格最高|最高价|售价最高", "desc", "money"),
    # "first" / "last" only closing the question ("Which PEP was created first?"); "first published in" is no extreme.
    (r"\boldest\b|\bearliest\b|\bfirst\s*[?？.]*$|最早|最老|最旧|最古老", "asc", "time"),
    (r"\bnewest\b|\blatest\b|\bmost recent(?:ly)?\b|\blast\s*[?？.]*$|最新|最晚|最近", "desc", "time"),
    (r"\bhighest\b|\bbest\b|\btop\b|\blargest\b|\bbiggest\b|\bgreatest\b|\bheaviest\b|\blongest\b|(?<!at )\bmost\b"
     r"|最高|最好|最大|最多|最重|最长|最受欢迎", "desc", ""),
    (r"\blowest\b|\bworst\b|\bsmallest\b|\blightest\b|\bshortest\b|(?<!at )\bleast\b|\bfewest\b"
     r"|最低|最差|最小|最少|最轻|最短", "asc", ""),
))
SUPERLATIVE_ANY = re.compile("|".join(rx.pattern for rx, _, _ in SUPERLATIVES), re.I)
# A question asking when: the row's year or date field, when the index has one.
WHEN_QUESTION = re.compile(r"^\s*when\b|\bwhen (?:did|was|were|is|will)\b|\bwann\b|\bseit wann\b|什么时候|何时|哪一?年"
                           r"|いつ|何年", re.I)
# "at least 4.5" and "at most 10" are comparisons, not superlatives.
COUNTING_SUPERLATIVE = re.compile(r"(?<!at )\bmost\b|(?<!at )\bleast\b|\bfewest\b|最多|最少", re.I)

# Comparisons around a number: (pattern before the number, pattern after it) → operator.
BEFORE_NUMBER: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p + r"\s*$", re.I), o) for p, o in (
    (r"\b(?:at least|no less than|not less than|no fewer than|minimum(?: of)?|min\.?)", ">="),
    (r"不低于|不少于|至少|不小于|起码", ">="),
    (r"\b(?:at most|no more than|not more than|up to|maximum(?: of)?|max\.?|not over|no later than)", "<="),
    (r"不超过|不高于|不多于|至多|不大于|不晚于", "<="),
    (r"\b(?:under|below|less than|fewer than|cheaper than|lower than|before|earlier than|prior to|"
     r"older than|smaller than)", "<"),
    (r"低于|少于|小于|不到|不足|早于|便宜于", "<"),
    (r"\b(?:over|above|more than|greater than|higher than|after|later than|exceeding|newer than|larger than|"
     r"bigger than|since)", ">"),
    (r"高于|超过|多于|大于|晚于|贵于", ">"),
    (r"\b(?:in|of|from|equal to|exactly)", "="),
))
AFTER_NUMBER: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(r"^\s*" + p, re.I), o) for p, o in (
    (r"(?:or more|or higher|or later|or above|and above|and up|and later|\+)", ">="),
    (r"(?:or less|or fewer|or lower|or earlier|or below|and below|and under|and earlier)", "<="),
    (r"年?(?:以后|之后|后)", ">"),
    (r"年?(?:以前|之前|前)", "<"),
    (r"年?(?:以上|及以上)", ">="),
    (r"年?(?:以下|及以下|以内)", "<="),
))
BETWEEN = re.compile(
    r"(?:\bbetween\s+|\bfrom\s+|在)?(?P<a>[$€£¥￥]?\d[\d,]*(?:\.\d+)?)\s*(?:年|元|美元)?\s*"
    r"(?:\band\b|\bto\b|到|至|和|与|-|–|~)\s*(?P<b>[$€£¥￥]?\d[\d,]*(?:\.\d+)?)\s*(?:年|元|美元)?\s*(?:之间|间)?",
    re.I)
NUMBER = re.compile(
    r"(?P<cur>[$€£¥￥])?\s?(?P<n>\d[\d,]*(?:\.\d+)?)\s?(?P<mag>万|亿|千|k\b|thousand\b|million\b|billion\b)?\s?"
    r"(?P<unit>年|元|美元|块|dollars?|yuan|usd|stars?)?", re.I)
# "100万" is a million, "2.5k" two and a half thousand.
MAGNITUDE = {"万": 1e4, "亿": 1e8, "千": 1e3, "k": 1e3, "thousand": 1e3, "million": 1e6, "billion": 1e9}
# What may remain of a question that counts everything ("how many books are there in total?").
BARE_COUNT_WORDS = frozenset("""there total altogether overall in all collection catalog catalogue library dataset
table space we you i have has got do does are is
有 是 的 一共 总共 共 共有 多少 几 本 个 部 种 条 件 项 吗 呢 里 中 这 那 我们 你 我
资料 数据 库 目录 里面 其中 总数 数量 一 了 都
""".split())
# A Chinese word made only of these characters explains itself ("本书", "共有几本").
EXPLAINED_CHARS = frozenset("".join(w for w in BARE_COUNT_WORDS if len(w) == 1) + "书产品商条目记录文档作小说物款")
YEAR_HINT = re.compile(r"\b(?:in|before|after|since|published|released|year)\b|年|出版|以前|以后|之前|之后", re.I)

# Language names for fields holding language codes ("eng", "en-US", "zh-CN").
LANGUAGE_NAMES: dict[str, tuple[str, ...]] = {
    "en": ("english", "英语", "英文"), "eng": ("english", "英语", "英文"),
    "fr": ("french", "法语", "法文"), "fre": ("french", "法语", "法文"), "fra": ("french", "法语", "法文"),
    "de": ("german", "德语", "德文"), "ger": ("german", "德语", "德文"), "deu": ("german", "德语", "德文"),
    "es": ("spanish", "西班牙语", "西班牙文"), "spa": ("spanish", "西班牙语", "西班牙文"),
    "it": ("italian", "意大利语"), "ita": ("italian", "意大利语"),
    "ja": ("japanese", "日语", "日文"), "jpn": ("japanese", "日语", "日文"),
    "zh": ("chinese", "中文", "汉语"), "chi": ("chinese", "中文", "汉语"), "zho": ("chinese", "中文", "汉语"),
    "pt": ("portuguese", "葡萄牙语"), "por": ("portuguese", "葡萄牙语"),
    "ru": ("russian", "俄语", "俄文"), "rus": ("russian", "俄语", "俄文"),
    "ar": ("arabic", "阿拉伯语"), "ara": ("arabic", "阿拉伯语"),
    "nl": ("dutch", "荷兰语"), "nld": ("dutch", "荷兰语"), "dut": ("dutch", "荷兰语"),
    "sv": ("swedish", "瑞典语"), "swe": ("swedish", "瑞典语"),
    "pl": ("polish", "波兰语"), "pol": ("polish", "波兰语"),
    "tr": ("turkish", "土耳其语"), "tur": ("turkish", "土耳其语"),
    "ko": ("korean", "韩语", "韩文"), "kor": ("korean", "韩语", "韩文"),
    "ind": ("indonesian", "印尼语"), "id": ("indonesian", "印尼语"),
    "per": ("persian", "波斯语"), "fas": ("persian", "波斯语"),
}
STOPWORDS = frozenset("""a an the of in on at to for by with and or is are was were be been do does did how many
much what which who whom whose where when why list show me give find name all any there this that these those it
its their than more less most least over under about from into per each every book books item items product
products record records document documents entry entries""".split())
# Pronouns, which a capital makes look like a name ("How do I reset it?", "Können Sie …"). Only the search for
# unexplained names skips them: a row may be called "Me Before You", so they stay out of STOPWORDS (issue 55).
PRONOUNS = frozenset("i you we he she they ich sie wir du er".split())
ITEM_NOUNS = re.compile(
    r"\b(?:books?|products?|items?|records?|rows?|entries|entry|documents?|titles?|novels?|works?)\b"
    # 本 and 款 are items only as measure words after a count ("几本", "多少款"): alone they are "this" (本协议) and a
    # sum (付款, 贷款), and "逾期付款要付多少滞纳金" asks no count of the rows (issue 55).
    r"|书|(?<=[几多少两\d一二三四五六七八九十百千])[本款]|产品|商品|条目|记录|文档|作品|小说|物品", re.I)
