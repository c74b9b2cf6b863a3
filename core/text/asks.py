"""What a question asks for, read from its words once (issue 55, the typed flow): the form of its answer (a year, a
number, a person, a name written as code), the values it must give (a count, an amount, a length, a date asked as
one), a price, the unit its number is asked in, the versions it names.

These are the question's side of answer/expected.py, which reads whether a sentence gives them. They are parsed into
``Question.asks`` (text/question.py) when the question is, and every stage reads them there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def asked_forms(question: str) -> set[str]:
    """The forms the question's word asks for: ``year``, ``number``, ``person``, ``code`` (none for "what", "why"
    …). A measure asks for a number."""
    forms = {form for form, rx in _ASKS.items() if rx.search(question)}
    return forms | {"number"} if _MEASURE.search(question) else forms


# A date asked in so many words: "when" alone is no date question ("When should I use Celery?", "What exception is
# raised when …").
_ASKS_DATE = re.compile(r"\b(?:what|which|in what|in which) (?:year|date|day|month)\b|哪一年|哪年|几几年|何年|何月何日|"
                        r"\bin welchem jahr\b|\ban welchem tag\b|\ben quelle année\b|\ben qué año\b", re.I)


# A version asked for as the answer ("Which Python version does it need?", 「最低支持哪个 Python 版本」, "Welche
# Bluetooth-Version …", 「どのバージョン」): answered by a version written out, not by a sentence about the product. Not
# a version named in the question ("wsgi.version", ``versions`` below), nor how to state one (「怎么指定版本要求」).
_ASKS_VERSION = re.compile(r"\b(?:what|which)\s+(?:[\w.+-]+\s+){0,2}versions?\b|\bversion number\b|"
                           r"\bwelche[rsnm]?\s+(?:[\w.+]+[- ])?version\b|"
                           r"(?:哪个|哪一个|哪些|什么)[^？?。，,]{0,12}版本|"
                           r"(?:どの|何)[^？?。、]{0,12}バージョン|バージョンは(?:何|いくつ)", re.I)


def asked_values(question: str) -> frozenset[str]:
    """The value forms the question asks for: a number (how many, how much, how long, a measure), a date named as
    one, a version asked for."""
    return _values(question, asked_forms(question))


def _values(question: str, forms: set[str] | frozenset[str]) -> frozenset[str]:
    return frozenset((forms & {"number"}) | ({"year"} if _ASKS_DATE.search(question) else set())
                     | ({"version"} if _ASKS_VERSION.search(question) else set()))


# A price asked for in so many words ("What is the price of …", "How much does … cost", 「单价是多少」,
# 「値段はいくら」, "Was kostet …"): answered by an amount of money, not by any number ("12 V / 1.5 A" for "How much
# does the hub cost?"). "How much" alone asks no price: "How much flash memory …".
_PRICE_WORD = re.compile(r"\b(?:prices?|pricing|costs?|fees?)\b|多少钱|价格|价钱|单价|售价|费用|收费|料金|値段|価格|"
                         r"\bpreis|\bkoste[nt]?\b|\bprecios?\b|\bcuesta\b|\bprix\b|\bcoûte|가격|요금", re.I)
_WHAT = re.compile(r"^\W*(?:what|which|was|welche[rsnm]?|quel(?:le)?s?|cuál|qué)\b", re.I)


def asks_price(question: str) -> bool:
    """Whether the question asks for a price (``_PRICE_WORD``, asked as a value: how much, what, 多少, いくら)."""
    return _price(question, asked_forms(question), asked_units(question))


def _price(question: str, forms: set[str] | frozenset[str], units: frozenset[str]) -> bool:
    # "What percentage of the fee is refunded?" asks a share of a price, not an amount of money.
    return (bool(_PRICE_WORD.search(question)) and PERCENT not in units
            and ("number" in forms or bool(_WHAT.search(question)) or "多少钱" in question))


# A unit the question asks its number in ("How many watts …", 「多少瓦」, "Wie viel Volt …", 「何ワット」) and how a
# value in it is written: a number with the unit's symbol (a prefix allowed: mW, kHz, GB) or its name. Physical units
# only: a length of time asked in hours may be answered in days, a wattage is not answered by "12 V / 1.5 A".
UNITS: dict[str, tuple[str, str, str]] = {
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
                             rf"多少(?:{q})|何(?:{q})", re.I) for u, (q, _, _) in UNITS.items()}
# A share asked as one ("What percentage …", 「百分之多少」, 「何パーセント」, "Wie viel Prozent …") is given as one:
# "9 %", "一百五十" after 百分之, "50 percent". Not a physical unit, so asked and written in its own forms.
PERCENT = "%"
_UNIT_ASKED[PERCENT] = re.compile(r"\bwhat (?:percentage|percent)\b|\bhow (?:many|much) percent|"
                                  r"\b(?:in|as a) percent(?:age)?\b|百分之(?:几|多少)|百分比(?:是)?多少|多少%|"
                                  r"何(?:パーセント|%|割)|\bwie viel(?:e)? prozent|\bwelche[rn]? prozentsatz", re.I)


def asked_units(question: str) -> frozenset[str]:
    """The physical units the question asks its number in (``UNITS``), or a percentage."""
    return frozenset(u for u, rx in _UNIT_ASKED.items() if rx.search(question))


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


# What a count is asked of: the word after "how many" ("How many users can share …"), "wie viele", "cuántos",
# "combien de", "quantos" — and the words after it up to a verb ("How many more alert rules …": "alert", "rules").
# A count of something else is no answer to it: "up to 10 sensors" does not say how many users a plan has.
_WORD = r"([^\W\d_][\w'-]*)"
_COUNTED = re.compile(rf"\bhow many\s+{_WORD}(?:\s+{_WORD})?(?:\s+{_WORD})?|"
                      rf"\bwie viele\s+{_WORD}(?:\s+{_WORD})?(?:\s+{_WORD})?|"
                      rf"\bcu[áa]nt[oa]s\s+{_WORD}|\bcombien d[e']\s*{_WORD}|\bquant[oa]s\s+{_WORD}", re.I)
# The words that end what is counted: a verb or a preposition after the counted noun ("users can", "Sensoren kann").
_COUNT_ENDS = frozenset("""can could do does did are is was were will would should shall may might must have has had
be been of in on at for to from with by per there i you we they he she it kann können darf dürfen sind ist hat haben
hatte wird werden passen gibt in im auf an pro puede pueden hay tiene tienen son est sont peut peuvent""".split())
# Words that qualify a count rather than name what is counted ("how many more", "how many different").
_COUNT_QUALIFIERS = frozenset("more different separate other additional extra total weitere verschiedene".split())


# In Chinese, what follows 多少 / 几 and its measure word, up to a verb or the question's end ("几个用户可以共享…",
# "有多少所大学？", "产假多少天"): Han characters, no word boundary to read, so the run before a verb is the thing.
_COUNTED_ZH = re.compile(r"(?:多少|几)(?:个|位|名|台|只|家|所|种|条|项|次|部|本|座)?"
                         r"([\u4e00-\u9fff]{1,4}?)(?=可以|可|能|会|有|是|的|在|被|要|需|[？?，,。！!]|$)")


# Measures of two characters, asked as 多少公里 / 几个小时: a unit, no thing counted (its number may come in another).
_MEASURE_ZH = re.compile(r"公里|千米|公斤|千克|小时|分钟|毫米|厘米|平方米|公顷|毫安|星期|个月|周岁")


def counted(question: str) -> tuple[str, ...]:
    """The word(s) a count is asked of (``_COUNTED``, ``_COUNTED_ZH``), folded; empty when no count of a thing is
    asked."""
    han = _COUNTED_ZH.search(question)
    if han is not None:  # a thing of two characters or more; one is a measure asked (多少米, 几年), no thing
        return (han.group(1),) if len(han.group(1)) >= 2 and not _MEASURE_ZH.fullmatch(han.group(1)) else ()
    found = _COUNTED.search(question)
    if found is None:
        return ()
    out: list[str] = []
    for word in (g for g in found.groups() if g):
        folded = word.casefold()
        if folded in _COUNT_ENDS:
            break
        if folded not in _COUNT_QUALIFIERS:
            out.append(folded)
    return tuple(out[:2])


@dataclass(frozen=True, slots=True)
class Asks:
    """What one question asks for: ``forms`` (``asked_forms``), ``values`` (``asked_values``), ``price``
    (``asks_price``), ``units`` (``asked_units``), ``versions`` (``versions``), ``counted`` (``counted``)."""

    forms: frozenset[str]
    values: frozenset[str]
    price: bool
    units: frozenset[str]
    versions: tuple[str, ...]
    counted: tuple[str, ...] = ()

    @classmethod
    def of(cls, question: str) -> Asks:
        forms, units = frozenset(asked_forms(question)), asked_units(question)  # each read once
        price = _price(question, forms, units)
        # A price or a unit asked is checked as one (answer/extractive.py): what is counted is asked only without.
        return cls(forms=forms, values=_values(question, forms), price=price, units=units,
                   versions=tuple(versions(question)), counted=() if price or units else counted(question))
