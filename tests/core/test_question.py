"""A question is parsed once (issue 56): ``Question.parse`` in core/text, read by every stage.

The structural test reads the source: outside core/text no module imports the question analysers
(``query_terms``, ``language_of``) or calls ``script_of`` on a question. It fails on a module that re-derives what
the parsed question already says, which is how two stages came to disagree about one question before.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from biny.core.text.question import Question, reply_language

ROOT = Path(__file__).resolve().parents[2]
ANALYSERS = {"query_terms", "language_of"}  # they only ever describe a question
QUESTION_NAMES = {"question", "query", "asked", "q"}


def _is_question(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in QUESTION_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in {"question", "retrieval_query"} or _is_question(node.value)
    return False


def offences(source: str) -> list[str]:
    """What in ``source`` analyses a question outside core/text: an analyser imported, or ``script_of`` (any
    analyser) called on a name or attribute that holds the question."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("biny.core.text"):
            found += [f"imports {a.name}" for a in node.names if a.name in ANALYSERS]
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ANALYSERS | {"script_of"} and node.args and _is_question(node.args[0]):
                found.append(f"line {node.lineno}: {name}({ast.unparse(node.args[0])})")
    return found


def test_no_module_outside_core_text_analyses_a_question_itself() -> None:
    bad = {}
    for path in [*ROOT.joinpath("core").rglob("*.py"), *ROOT.joinpath("console").rglob("*.py")]:
        if path.parent == ROOT / "core" / "text":
            continue
        found = offences(path.read_text(encoding="utf-8"))
        if found:
            bad[str(path.relative_to(ROOT))] = found
    assert not bad, f"analyse the question once, with Question.parse (core/text/question.py): {bad}"


def test_the_guard_finds_each_kind_of_offence() -> None:
    # The check itself can fail: each way of re-analysing a question is caught, a passage's script is not.
    assert offences("from biny.core.text.terms import query_terms\n") == ["imports query_terms"]
    assert offences("script_of(question)\n") == ["line 1: script_of(question)"]
    assert offences("x = language_of(result.question)\n") == ["line 1: language_of(result.question)"]
    assert offences("script_of(c.text)\nscript_of(sentence)\n") == []


@pytest.mark.parametrize(("text", "script", "language", "reply"), [
    ("How much does the Team plan cost per month?", "latin", "en", "en"),
    ("Wie viele Sensoren kann ein Hub verwalten?", "latin", "de", "en"),
    ("团队版每月多少钱？", "han", None, "zh"),
    ("主题为Packaging的PEP有哪些？", "latin", None, "zh"),  # more Han characters than Latin words: answered in Chinese
    ("ハブの価格はいくらですか？", "kana", None, "ja"),
])
def test_a_question_is_read_once_into_one_value(text: str, script: str, language: str | None, reply: str) -> None:
    q = Question.parse(text)
    assert (q.script, q.language, q.reply_language) == (script, language, reply)
    assert q.reply_language == reply_language(text) and str(q) == text


def test_terms_identifiers_and_aspects_are_parsed_with_the_question() -> None:
    q = Question.parse("What does Article 18 say about the price in 2021?")
    assert {"article", "price"} <= q.terms and "what" not in q.terms  # question words carry no weight
    assert [i.key for i in q.keys], "the article number is an identifier"
    assert "2021" in q.terms
    assert Question.parse("第十八条是怎么规定的？").keys  # the same identifier written in Chinese
    assert Question.parse("How long does the battery last?").aspects == {"duration"}


@pytest.mark.parametrize(("text", "terms"), [
    ("What's included in the box?", {"included", "box"}),
    ("Who’s the CEO of Tallow?", {"ceo", "tallow"}),
    ("What is BSkyB's share?", {"bskyb", "bskyb's", "share"}),  # a name's possessive keeps the name
])
def test_a_contracted_question_word_is_no_term(text: str, terms: set[str]) -> None:
    """Issue 55: "what's" is absent from most texts, so it took the largest weight among the question's words and
    left "box" a third of it: the demo refused "What's included in the box?"."""
    assert Question.parse(text).terms == terms


def test_no_module_reads_a_decision_back_out_of_the_trace() -> None:
    """Issue 56: the trace is the audit log. Stages say why they kept a passage on the candidate (kept.py reads that),
    the star map reads the result's pool; no core module looks a stage or its record up in a trace to decide or
    draw something. (The console and the CLI render the trace; trace/__init__.py defines the look-ups.)"""
    readers = {}
    for path in ROOT.joinpath("core").rglob("*.py"):
        if path.name == "trace.py" or path.parent.name == "cli":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in {"stage", "record"} and _names_trace(n.func.value)]
        if calls:
            readers[str(path.relative_to(ROOT))] = calls
    assert not readers, f"read decisions from the candidates or the result, not the trace: {readers}"


def _names_trace(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "trace") or (isinstance(node, ast.Attribute)
                                                                    and node.attr == "trace")


def test_plain_ascii_text_is_read_as_every_script_pattern_reads_it() -> None:
    """Issue 57: ASCII text takes a one-pattern path; it must group text exactly as the eight patterns do."""
    from biny.core.text import scripts

    def slow_groups(text: str) -> set[str]:
        counts = {name: len(rx.findall(text)) for name, rx in scripts.SCRIPTS}
        total = sum(counts.values())
        return {name for name, c in counts.items() if c >= 2 and c >= 0.1 * total}

    for text in ("The hub keeps 7 days.", "a", "42 - 17", "", "NS4150 3W", "x y", "[Figure (page 2)] 2 3"):
        assert text.isascii()
        assert scripts.scripts_of(text) == slow_groups(text)
        assert scripts.script_of(text) == ("latin" if any(c.isalpha() for c in text) else "all")
    assert scripts.script_of("集线器 hub") == "han" and scripts.scripts_of("Tallow 服务协议") == {"latin", "han"}


@pytest.mark.parametrize(("text", "term", "named"), [
    ("Does the hub work with Alexa?", "alexa", True),
    ("Who is the CEO of Tallow?", "ceo", True),  # an acronym: all in capitals
    ("Alexa: does the hub work with it?", "alexa", False),  # the capital begins the sentence
    ("Is it quiet. Alexa says so?", "alexa", False),
    ("does the hub work with alexa?", "alexa", False),
    ("WHO IS THE CEO OF TALLOW?", "ceo", False),  # all in capitals: the writing says nothing
    ("Funktioniert der Hub mit Alexa?", "alexa", False),  # German capitalises every noun
    ("集线器支持 Alexa 吗？", "alexa", True),  # a Latin word inside Chinese
])
def test_a_word_is_written_as_a_name_by_its_capitals_where_the_language_capitalises_names(
        text: str, term: str, named: bool) -> None:
    assert Question.parse(text).written_as_name(term) is named


def test_the_name_around_a_word_is_its_run_of_capitalised_words() -> None:
    q = Question.parse("Who was the first American to win the Nobel Memorial Prize in Economic Sciences?")
    assert q.name_around("memorial") == ("nobel", "prize", "economic", "sciences")
    assert q.name_around("american") == ()  # "to win the" joins no name: "to" and "win" are no part of one
    pair = Question.parse("Does the hub work with Alexa or Google Home?")
    assert pair.name_around("google") == ("home",) and pair.name_around("alexa") == ()
    assert Question.parse("Who is the CEO of Tallow?").name_around("ceo") == ()  # an acronym stands alone


def test_the_names_every_stage_reads_are_parsed_once_where_writing_tells_them() -> None:
    """``Question.names``: the one set the mention check (retrieve/mentions.py) and the answer's value check
    (answer/extractive.py) read. A Spanish question's capitals are Spanish names ("Varsovia"), often written
    otherwise in the material ("Warsaw"): the answer is not refused for lacking them."""
    from biny.core.answer import extractive

    assert Question.parse("Does the hub work with Alexa?").names == {"alexa"}
    assert Question.parse("集线器支持 Alexa 吗？").names == {"alexa"}
    spanish = Question.parse("¿Cuántos habitantes tiene Varsovia?")
    assert spanish.language == "es" and spanish.names == frozenset()
    assert spanish.written_as_name("varsovia")  # capitalised as a name is, yet no evidence over another language
    warsaw = "Warsaw has 1.8 million inhabitants. It lies on the Vistula."
    assert "1.8 million" in extractive.render(extractive.choose(spanish, [warsaw]))
    # An acronym is written alike in every language: a name there too.
    assert Question.parse("Auf welchem Port läuft die MQTT-Schnittstelle?").names == {"mqtt"}
