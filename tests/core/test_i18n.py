"""The engine's words in the interface language (issue 21): the catalogue covers every marked text, and the
command line speaks Chinese when asked to (BINY_LANG or the locale)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from biny.core import cli, i18n
from biny.core.engine import Engine
from tests.literals import marked_texts

ROOT = Path(__file__).resolve().parents[2]


# {name}, {name!r}, {value:.1f}: the translation must keep each one whole (conversion and format included).
_PLACEHOLDER = re.compile(r"\{\w+(?:![rsa])?(?::[^{}]*)?\}")


def _marked() -> set[str]:
    return marked_texts(ROOT / "core", ("t", "N_", "msg"))


def test_every_marked_text_has_a_chinese_translation_with_the_same_placeholders() -> None:
    marked = _marked()
    assert len(marked) >= 25  # the scan found the marked texts, not nothing
    zh = json.loads((ROOT / "resources" / "i18n" / "zh_CN.json").read_text(encoding="utf-8"))
    assert sorted(marked - set(zh)) == []
    for english, chinese in zh.items():
        assert re.search(r"[\u4e00-\u9fff]", chinese), english
        assert set(_PLACEHOLDER.findall(english)) == set(_PLACEHOLDER.findall(chinese)), english


@pytest.fixture
def language() -> Iterator[None]:
    i18n.set_language(None)  # follow the environment (a console test may have chosen a language)
    yield
    i18n.set_language(None)


def test_the_language_follows_the_environment(monkeypatch: pytest.MonkeyPatch, language: None) -> None:
    for var in ("BINY_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    assert i18n.language() == "en" and i18n.t("Sources:") == "Sources:"
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.language() == "zh_CN" and i18n.t("Sources:") == "来源："
    monkeypatch.setenv("BINY_LANG", "en")  # an explicit choice beats the locale
    assert i18n.language() == "en"
    i18n.set_language("zh_CN")  # the console's choice beats both
    assert i18n.t("error: {message}").format(message="x") == "错误：x"


def test_the_command_line_in_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str], language: None) -> None:
    monkeypatch.setenv("BINY_LANG", "zh_CN")
    doc = tmp_path / "pumps.md"
    doc.write_text("Pump P-7 is serviced every 6 weeks by the night shift.", encoding="utf-8")
    home = str(tmp_path / "home")
    assert cli.main(["--home", home, "space", "create", "plant", "--unencrypted"]) == 0
    assert "已创建空间 'plant'" in capsys.readouterr().out
    assert cli.main(["--home", home, "ingest", "--space", "plant", str(doc)]) == 0
    out = capsys.readouterr().out
    assert "已导入 1 个，未变化 0 个，失败 0 个" in out and "已导入" in out.splitlines()[-2]
    assert cli.main(["--home", home, "ask", "--space", "plant", "秘鲁的首都是哪里？"]) == 0
    assert "没有足够接近的段落来回答" in capsys.readouterr().out
    assert cli.main(["--home", home, "index", "propose", "--space", "plant"]) == 0
    proposed = capsys.readouterr().out
    assert "1 个文档，其中 0 个带机器可读的表头" in proposed and "没有索引" in proposed
    assert cli.main(["--home", home, "space", "list"]) == 0
    assert "plant\t1 个文档\t1 个片段" in capsys.readouterr().out
    assert cli.main(["--home", home, "ask", "--space", "nowhere", "x"]) == 2
    assert capsys.readouterr().err.startswith("错误：没有名为 'nowhere' 的空间（现有空间：plant）")


def test_file_errors_and_argparse_in_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str], language: None) -> None:
    """A refused file names the problem in Chinese (through the PDF parser's child process too), and argparse's
    own words (usage, required arguments, -h) follow; English comes back once the command is done."""
    monkeypatch.setenv("BINY_LANG", "zh_CN")
    home = str(tmp_path / "home")
    fake = tmp_path / "report.pdf"
    fake.write_text("this is not a PDF at all", encoding="utf-8")
    locked = tmp_path / "locked.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Pump P-7 is serviced every 6 weeks.")
    doc.save(str(locked), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="o")
    assert cli.main(["--home", home, "space", "create", "plant", "--unencrypted"]) == 0
    assert cli.main(["--home", home, "ingest", "--space", "plant", str(fake)]) == 1
    assert "report.pdf 名为 .pdf，但没有 PDF 文件头" in capsys.readouterr().out
    assert cli.main(["--home", home, "ingest", "--space", "plant", str(locked)]) == 1
    assert "locked.pdf 受密码保护。请移除密码" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        cli.main(["--home", home, "ask"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("用法：") and "缺少以下必需参数" in err
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    shown = capsys.readouterr().out
    assert "基于你自己的文档给出有据可查的回答" in shown and "显示此帮助信息并退出" in shown and "选项" in shown
    import argparse

    assert argparse.ArgumentParser(prog="x").format_usage().startswith("usage: ")  # argparse is left as it was


def test_a_message_is_worded_in_the_language_chosen_when_shown(language: None) -> None:
    """Issue 56: core records the English and the values; the words come when the message is shown."""
    i18n.set_language("en")
    said = i18n.msg("error: {message}").format(message=i18n.msg("Sources:")) + " (1)"
    assert str(said) == "error: Sources: (1)" and said == "error: Sources: (1)"
    i18n.set_language("zh_CN")  # chosen after the message was made
    assert str(said) == "错误：来源： (1)" and f"{said}" == "错误：来源： (1)"
    assert "x " + i18n.msg("Sources:") == "x 来源："  # plain text joined in front stays as written
    assert i18n.as_msg("Sources:") == "来源：" and i18n.as_msg(said) is said
    assert not i18n.msg("") and i18n.msg("Sources:")
    with pytest.raises(TypeError):
        said.format(message="y")  # a joined message has no one placeholder set to fill


def test_an_answer_and_its_trace_are_worded_when_shown_not_when_made(engine: Engine, tmp_path: Path,
                                                                    language: None) -> None:
    """An ask made in English reads in Chinese once Chinese is chosen: the trace's summaries and reasons, the
    answer's note and ``--json`` are worded when shown (issue 56: the console renders at display time)."""
    i18n.set_language("en")
    doc = tmp_path / "pumps.md"
    doc.write_text("Pump P-7 is serviced every 6 weeks by the night shift.\n\nThe night shift starts at 22:00.",
                   encoding="utf-8")
    engine.create_space("plant")
    engine.ingest("plant", [doc])
    result = engine.answer("plant", "What is the capital of Peru?")
    assert result.answer is not None and result.answer.mode == "none"
    english = [str(s.summary) for s in result.trace.stages]
    note = str(result.answer.note)
    assert not any(re.search(r"[\u4e00-\u9fff]", s) for s in [*english, note])
    i18n.set_language("zh_CN")
    chinese = [str(s.summary) for s in result.trace.stages]
    assert re.search(r"[\u4e00-\u9fff]", str(result.answer.note)) and str(result.answer.note) != note
    worded = [z for e, z in zip(english, chinese, strict=True) if e != z and re.search(r"[\u4e00-\u9fff]", z)]
    assert len(worded) >= len(chinese) - 2, chinese  # every stage but those naming only numbers and ids
    dumped = json.dumps(result.trace.to_dict(), ensure_ascii=False)
    assert all(z in dumped for z in worded)
    assert json.loads(json.dumps(result.answer.to_dict(), ensure_ascii=False))["note"] == str(result.answer.note)


def test_the_structured_index_words_its_reasons_when_shown(tmp_path: Path, language: None) -> None:
    """A proposal's reasons and the router's evidence are messages too: the curator's screen and ``--json`` show
    them in the language chosen when shown (issue 56)."""
    from biny.core.structured.propose import DocText, propose

    i18n.set_language("en")
    docs = [DocText(f"d{i}", 1, f"Item {i}", f"Colour: red\nWeight: {i} kg\nNote: {'x' * 300}\n\nItem {i}.")
            for i in range(5)]
    proposal = propose(docs)
    english = json.dumps(proposal.to_dict(), ensure_ascii=False)
    i18n.set_language("zh_CN")
    chinese = json.dumps(proposal.to_dict(), ensure_ascii=False)
    assert english != chinese and re.search(r"[\u4e00-\u9fff]", chinese) and not re.search(r"[\u4e00-\u9fff]", english)
