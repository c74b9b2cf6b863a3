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
                      r"spannung|strom(?:aufnahme)?|frequenz|temperatur|größe|bereich|länge|kapazität|(?<!dienst)leistung|"
                      r"reichweite|wie weit|maximal|minimal", re.I)

_ASKS = {
    "year": re.compile(r"\b(?:what|which) (?:year|decade|century)\b|\bwhen\b|\bin what year\b|\bsince when\b|"
                       r"哪一年|哪年|哪个年代|哪个世纪|什么时候|何时|几几年|什么年代|何年|いつ|何年|\bwann\b|"
                       r"\bquand\b|\bcuándo\b|\bin welchem jahr\b", re.I),
    "number": re.compile(r"\bhow (?:many|much|far|old|tall|high|long|big|large|deep|wide|fast|often)\b|"
                         r"\bwhat (?:percentage|percent|proportion|number|amount|fraction)\b|"
                         r"多少|几[个位所名次倍年月天条种家座岁]|百分之几|多大|多高|多长|多远|多重|多少倍|"
                         r"いくつ|何人|何個|何回|wie viele|wie viel|combien|cuántos|cuántas|cuánto", re.I),
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
