"""The engine's words in the interface language (issue 21): the catalogue covers every marked text, and the
command line speaks Chinese when asked to (BINY_LANG or the locale)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from biny.core import cli, i18n

ROOT = Path(__file__).resolve().parents[2]


def _marked() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t" \
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return found


def test_every_marked_text_has_a_chinese_translation_with_the_same_placeholders() -> None:
    marked = _marked()
    assert len(marked) >= 25  # the scan found the marked texts, not nothing
    zh = json.loads((ROOT / "resources" / "i18n" / "zh_CN.json").read_text(encoding="utf-8"))
    assert sorted(marked - set(zh)) == []
    for english, chinese in zh.items():
        assert re.search(r"[\u4e00-\u9fff]", chinese), english
        assert set(re.findall(r"\{\w+\}", english)) == set(re.findall(r"\{\w+\}", chinese)), english


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
