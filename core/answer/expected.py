"""What form the answer to a question takes, and whether a sentence holds it — by the question word alone.

"What year did Tesla die?" is answered by a sentence with a year in it, "How many universities …" /
"纽卡斯尔有多少所大学？" by one with a count, "Who …" by one naming someone the question does not. Without a
model this is the cheapest evidence the no-model answer has that a sentence *answers* rather than *mentions*
(measured with bench/eval_answers.py). Forms, not meanings: digits of every script, Chinese numerals, years,
month names; a person is a capitalised name the question does not hold, or a transliterated one ("托马斯·皮凯蒂").
"""

from __future__ import annotations

import re

# What a program's parts are called, asked for by name.
_CODE_NOUNS_EN = ("macro|package|module|library|function|method|class|exception|error|key|field|option|flag|"
                  "variable|env var|environment variable|command|file|attribute|parameter|argument|header|"
                  "decorator|keyword|extra|directive|setting|import")
_CODE_NOUNS_DE = ("Paket|Modul|Bibliothek|Paketbibliothek|Funktion|Methode|Klasse|Exception|Ausnahme|Schlüssel|"
                  "Option|Variable|Umgebungsvariable|Befehl|Datei|Attribut|Parameter|Argument|Header|Dekorator|Makro")
_CODE_NOUNS_ZH = "包|库|模块|函数|方法|类|异常|键|字段|选项|参数|变量|环境变量|命令|文件|属性|装饰器|宏|头"
_CODE_NOUNS_JA = ("パッケージ|ライブラリ|モジュール|関数|メソッド|クラス|例外|キー|フィールド|オプション|変数|環境変数|"
                  "コマンド|ファイル|属性|引数|デコレータ|マクロ")

# A quantity named by its measure, as people type into a search box ("trial length?", "NS4150 supply voltage
# range", 「供电电压范围」, "Spannungsbereich"): answered by a number as "how long" is.
_MEASURE = re.compile(r"\b(?:length|range|size|port|voltage|current|frequency|temperature|capacity|weight|"
                      r"speed|timeout|bandwidth|resolution|dimensions?|wavelength|max(?:imum)?|min(?:imum)?)\b|"
                      r"电压|电流|频率|温度|尺寸|范围|长度|容量|功率|速率|端口|上限|下限|最大|最小|波长|"
                      r"電圧|電流|周波数|温度|サイズ|範囲|長さ|容量|出力|ポート|上限|最大|最小|波長|"
                      r"spannung|strom(?:aufnahme)?|frequenz|temperatur|größe|länge|kapazität|(?<!dienst)leistung|"
                      # (a range of a measure: "Benutzerbereich" is the user area)
                      r"(?:mess|betriebs|druck|dreh)bereich|"
                      r"reichweite|wie weit|maximal|minimal", re.I)

_ASKS = {
    "year": re.compile(r"\b(?:what|which) (?:year|decade|century)\b|\bwhen\b|\bin what year\b|\bsince when\b|"
                       r"哪一年|哪年|哪个年代|哪个世纪|什么时候|何时|几几年|什么年代|何年|いつ|何年|\bwann\b|"
                       r"\bquand\b|\bcuándo\b|\bin welchem jahr\b", re.I),
    "number": re.compile(r"\bhow (?:many|much|far|old|tall|high|long|big|large|deep|wide|fast|often)\b|"
                         r"\bwhat (?:percentage|percent|proportion|number|amount|fraction)\b|"
                         r"多少|几[个位所名次倍年月天条种家座岁]|百分之几|多大|多高|多长|多远|多重|多少倍|"
                         r"いくつ|何人|何個|何回|wie viele|wie viel|combien|cuántos|cuántas|cuánto|"
                         # "How long", "how much money" as German, Chinese and Japanese ask them: 「多久」,
                         # "wie lange", 「いくら」, 「何時間」, 「どのくらい」.
                         r"多久|几(?:小时|分钟|秒|周|行)|\bwie (?:lange|hoch|groß|schwer|schnell|oft|alt|weit|breit|"
                         r"tief|teuer)\b|いくら|どの(?:くらい|ぐらい)|どれ(?:くらい|ぐらい)|"
                         r"何(?:日|時間|分|秒|行|文字|度|ボルト|ワット|パーセント|メートル|キロ|台|枚|か月|ヶ月|"
                         r"年間)", re.I),
    "person": re.compile(r"\bwho\b|\bwhom\b|\bwhose\b|\bwer\b|\bqui\b|\bquién\b|谁|哪位|何人|誰", re.I),
    # Technical documentation: "What macro is defined …", "Which exception is raised …", "Welches Paket …",
    # 「用哪个库」, 「どのパッケージ」 — answered by a name written as code, not by words.
    "code": re.compile(rf"\b(?:what|which)\s+(?:\w+\s+)?(?:{_CODE_NOUNS_EN})s?\b"
                       rf"|\bwelche[snmr]?\s+(?:\w+\s+)?(?:{_CODE_NOUNS_DE})(?:n|en|e|s)?\b"
                       rf"|(?:哪个|哪些|哪一个|什么|啥)(?:{_CODE_NOUNS_ZH})|どの(?:{_CODE_NOUNS_JA})"
                       # (「関数は何行」 asks for a count of lines)
                       rf"|(?:{_CODE_NOUNS_JA})は(?:何|なに|どれ)(?![行個回人年日月本件つ])", re.I),
}

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


def expected(question: str) -> set[str]:
    """The forms the question's word asks for: ``year``, ``number``, ``person``, ``code`` (none for "what", "why"
    …). A measure asks for a number."""
    forms = {form for form, rx in _ASKS.items() if rx.search(question)}
    return forms | {"number"} if _MEASURE.search(question) else forms


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
VALUE_FORMS = frozenset({"year", "number"})
# A date asked in so many words: "when" alone is no date question ("When should I use Celery?", "What exception is
# raised when …").
_ASKS_DATE = re.compile(r"\b(?:what|which|in what|in which) (?:year|date|day|month)\b|哪一年|哪年|几几年|何年|何月何日|"
                        r"\bin welchem jahr\b|\ban welchem tag\b|\ben quelle année\b|\ben qué año\b", re.I)


def asked_values(question: str) -> frozenset[str]:
    """The value forms the question asks for: a number (how many, how much, how long, a measure), a date named as
    one."""
    forms = expected(question) & {"number"}
    return frozenset(forms | ({"year"} if _ASKS_DATE.search(question) else set()))


# Numbers that label a place rather than give a value: a law's 第四十八条 / 第一章, a list's （三） or "(2)", a
# numbered heading's or item's leading "3." / "2)", a reference to an article, section or page. Their digits say
# nothing of how many or how much.
_LABEL = re.compile(r"第[零〇一二两三四五六七八九十百千\d]+[条章节款项编部篇回]"
                    r"|[（(][零〇一二两三四五六七八九十百千\d]{1,4}[）)]"
                    r"|^\s*\d{1,3}(?:\.\d{1,3})*[.)、]\s"
                    r"|(?:\b(?:Article|Art\.|Section|Chapter|Page|p\.|PEP|RFC|Figure|Fig\.|Table|Step)|§)\s*\d+[\w.]*",
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


# A name with digits in it — a part, a model, a chip ("CH32V003F4P6", "ESP32-C6", "TA-210"): its digits are no value.
_CODED_NAME = re.compile(r"\b[A-Za-z][\w-]*\d[\w-]*")


def gives_value(form: str, sentence: str, question: str) -> bool:
    """Whether ``sentence`` gives a value of ``form`` (``VALUE_FORMS``) the question does not — labels and names
    with digits aside."""
    text = _CODED_NAME.sub(" ", _LABEL.sub(" ", sentence))
    if form != "number":
        return holds(form, text, question)
    return any(m.group(0) not in question for rx in (_VALUE_NUMBER, _ZH_VALUE) for m in rx.finditer(text))


# A price asked for in so many words ("What is the price of …", "How much does … cost", 「单价是多少」,
# 「値段はいくら」, "Was kostet …"): answered by an amount of money, not by any number ("12 V / 1.5 A" for "How much
# does the hub cost?"). "How much" alone asks no price: "How much flash memory …".
_PRICE_WORD = re.compile(r"\b(?:prices?|pricing|costs?|fees?)\b|多少钱|价格|价钱|单价|售价|费用|收费|料金|値段|価格|"
                         r"\bpreis|\bkoste[nt]?\b|\bprecios?\b|\bcuesta\b|\bprix\b|\bcoûte|가격|요금", re.I)
_WHAT = re.compile(r"^\W*(?:what|which|was|welche[rsnm]?|quel(?:le)?s?|cuál|qué)\b", re.I)


def asks_price(question: str) -> bool:
    """Whether the question asks for a price (``_PRICE_WORD``, asked as a value: how much, what, 多少, いくら)."""
    # "What percentage of the fee is refunded?" asks a share of a price, not an amount of money.
    return (bool(_PRICE_WORD.search(question)) and PERCENT not in asked_units(question)
            and ("number" in expected(question) or bool(_WHAT.search(question)) or "多少钱" in question))


# A unit the question asks its number in ("How many watts …", 「多少瓦」, "Wie viel Volt …", 「何ワット」) and how a
# value in it is written: a number with the unit's symbol (a prefix allowed: mW, kHz, GB) or its name. Physical units
# only: a length of time asked in hours may be answered in days, a wattage is not answered by "12 V / 1.5 A".
_UNITS: dict[str, tuple[str, str, str]] = {
    # unit: (how a question names it, its symbols after a number, its names after a number)
    "W": (r"watts?|瓦(?:特)?|ワット", r"[mkMG]?W\b", r"watts?|瓦|ワット"),
    "V": (r"volts?|伏(?:特)?|ボルト", r"[mkM]?V\b", r"volts?|伏|ボルト"),
    "A": (r"amps?|amperes?|安培|アンペア", r"[mµu]?A\b", r"amps?|amperes?|安|アンペア"),
    "Hz": (r"hertz|赫兹|ヘルツ", r"[kMG]?Hz\b", r"hertz|赫兹|ヘルツ"),
    "mAh": (r"mah|milliamp[- ]hours?", r"mAh\b", r"milliamp[- ]hours?"),
    "B": (r"(?:kilo|mega|giga|tera)?bytes?|kb|mb|gb|tb|字节|バイト", r"[KMGT]i?B\b",
          r"(?:kilo|mega|giga|tera)?bytes?|字节|バイト"),
    "dB": (r"decibels?|分贝|デシベル", r"dB\b", r"decibels?|分贝|デシベル"),
}
_UNIT_ASKED = {u: re.compile(rf"\bhow (?:many|much)\s+(?:{q})\b|\bin (?:{q})\b|\bwie viele?\s+(?:{q})\b|"
                             rf"多少(?:{q})|何(?:{q})", re.I) for u, (q, _, _) in _UNITS.items()}
_UNIT_GIVEN = {u: re.compile(rf"\d(?:[\d.,]*\d)?\s?(?:{symbol}|(?i:{names}))")
               for u, (_, symbol, names) in _UNITS.items()}
# A share asked as one ("What percentage …", 「百分之多少」, 「何パーセント」, "Wie viel Prozent …") is given as one:
# "9 %", "一百五十" after 百分之, "50 percent". Not a physical unit, so asked and written in its own forms.
PERCENT = "%"
_UNIT_ASKED[PERCENT] = re.compile(r"\bwhat (?:percentage|percent)\b|\bhow (?:many|much) percent|"
                                  r"\b(?:in|as a) percent(?:age)?\b|百分之(?:几|多少)|百分比(?:是)?多少|多少%|"
                                  r"何(?:パーセント|%|割)|\bwie viel(?:e)? prozent|\bwelche[rn]? prozentsatz", re.I)
_UNIT_GIVEN[PERCENT] = re.compile(r"\d\s?[%％‰]|\d\s?(?:percent|per cent|prozent|パーセント)|"
                                  r"百分之[零〇一二三四五六七八九十百千\d]|[一二三四五六七八九十]割", re.I)


def asked_units(question: str) -> frozenset[str]:
    """The physical units the question asks its number in (``_UNITS``), or a percentage."""
    return frozenset(u for u, rx in _UNIT_ASKED.items() if rx.search(question))


def gives_unit(unit: str, sentence: str) -> bool:
    """Whether ``sentence`` gives a number in ``unit``."""
    return _UNIT_GIVEN[unit].search(sentence) is not None


# A version the question names: a dotted number after a name ("Python 3.15", "ESP-IDF 5.1", "USB 3.0"), after
# "version" / "v" / 版本 / バージョン, or with two dots or more ("3.15.0"). It names one thing as an identifier does:
# passages about 3.13 do not answer a question about 3.15 (issue 55: "When is Python 3.15.0 final scheduled?" was
# answered with 3.13.0's dates). A quantity is no version: "3.5 V" follows no name.
_VERSION = re.compile(r"(?:\b[A-Z][\w+-]*\s+|\b(?i:version|release|v)\s?|版本\s?|バージョン\s?)"
                      r"v?(\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)"
                      r"(?!\s?(?:[mkMGµu]?(?:V|A|W|Hz|Ω|F|H|m|g|s|B|b)|dB|min|h)\b|\s?[%°])"
                      r"|(?<![\w.])v?(\d+\.\d+\.\d+)(?![\w.]*\d)")


def versions(question: str) -> list[str]:
    """The versions the question names (``_VERSION``), as written ("3.15.0")."""
    return list(dict.fromkeys(m.group(1) or m.group(2) for m in _VERSION.finditer(question)))


def holds_version(version: str, text: str) -> bool:
    """Whether ``text`` writes ``version`` or a version within it ("3.15" in "3.15.0a1", never in "3.150")."""
    return re.search(rf"(?<![\d.]){re.escape(version)}(?!\d)", text) is not None
