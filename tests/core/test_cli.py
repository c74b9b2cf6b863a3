"""The `biny` CLI end to end, in-process, against a temp data folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biny.core.cli import main
from tests.conftest import corpus


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_space_ingest_docs_ask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    assert run(capsys, "--home", home, "space", "create", "peps")[0] == 0
    code, out, _ = run(capsys, "--home", home, "space", "list")
    assert code == 0 and "peps" in out

    bad = tmp_path / "empty.txt"
    bad.write_bytes(b"")
    code, out, _ = run(capsys, "--home", home, "ingest", str(corpus("python_peps", "pep-0020.rst")),
                       str(corpus("python_peps", "pep-0257.rst")), str(bad), "--space", "peps")
    assert code == 1, "a failed file makes the exit code non-zero"
    assert "2 ingested, 0 unchanged, 1 failed" in out and "empty" in out

    code, out, _ = run(capsys, "--home", home, "docs", "--space", "peps", "--json")
    docs = json.loads(out)
    assert {d["title"] for d in docs} == {"PEP 20 – The Zen of Python", "PEP 257 – Docstring Conventions"}

    code, out, _ = run(capsys, "--home", home, "ask", "What should a one-line docstring look like?",
                       "--space", "peps", "--json", "--k", "3")
    data = json.loads(out)
    assert code == 0 and data["question"].startswith("What should")
    assert 1 <= len(data["chunks"]) <= 3
    assert data["chunks"][0]["document"] == "PEP 257 – Docstring Conventions"
    assert {"text", "document", "source", "distance", "pinned"} <= set(data["chunks"][0])
    assert isinstance(data["baseline"], float) and data["trace"]["stages"]

    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"id": "a", "question": "Is flat better than nested?"}) + "\n"
        + json.dumps("Wie backe ich einen Käsekuchen ohne Boden?", ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "--home", home, "ask", "--questions", str(questions), "--space", "peps", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 2 and rows[0]["id"] == "a"
    assert any("Flat is better than nested" in c["text"] for c in rows[0]["chunks"])
    assert rows[1]["chunks"] == [] or len(rows[1]["chunks"]) < 5


def test_cli_errors_are_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    code, _, err = run(capsys, "--home", home, "ask", "anything", "--space", "nope")
    assert code == 2 and "No space named 'nope'" in err and "biny space create nope" in err
    code, _, err = run(capsys, "--home", home, "space", "delete", "nope", "--yes")
    assert code == 2 and "No space named" in err


def test_global_options_after_the_subcommand_and_a_second_demo_reports_unchanged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    assert main(["demo", "--home", home]) == 0  # --home after the subcommand
    assert "7 ingested, 0 unchanged, 0 failed" in capsys.readouterr().out
    assert main(["demo", "--home", home]) == 0
    assert "0 ingested, 7 unchanged, 0 failed" in capsys.readouterr().out  # not "0 documents ingested"
    # The demo's product list is a table: 20 row documents and a structured index over them.
    assert main(["index", "show", "--space", "demo", "--home", home, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["rows"] == 20 and {"Price", "Category", "Product Url"} <= {f["name"] for f in shown["fields"]}
    assert main(["ask", "What is the cheapest gateway?", "--space", "demo", "--home", home, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["structured"]["result"] == "Tallow Gateway Home"
    assert main(["--home", str(tmp_path / "elsewhere"), "space", "list", "--json", "--home", home]) == 0
    assert [s["name"] for s in json.loads(capsys.readouterr().out)] == ["demo"]  # the later --home wins
    assert main(["ask", "Which plan is for small workshops?", "--space", "demo", "--home", home, "--json"]) == 0
    top = json.loads(capsys.readouterr().out)["chunks"][0]
    # R9 in plain words: the answer sits closer to the question than most unrelated questions come.
    assert top["document"] == "Tallow Plans and Pricing" and top["closer_than"] > 0.5


def test_the_cli_runs_as_a_module(tmp_path: Path) -> None:
    """`python -m biny.core.cli` reaches the same commands as `biny` (it once failed with a NameError)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "biny.core.cli", "--home", str(tmp_path), "space", "list"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "no spaces yet" in done.stdout


def test_help_texts_speak_to_users_not_requirement_ids() -> None:
    """`--help` is read by people who have not seen the requirement list: no "(S1–S7)" in it."""
    import argparse
    import re

    from biny.core.cli import build_parser

    texts: list[str] = []

    def walk(parser: argparse.ArgumentParser) -> None:
        texts.extend(filter(None, [parser.description, parser.epilog]))
        for action in parser._actions:
            texts.extend(filter(None, [action.help if isinstance(action.help, str) else None]))
            if isinstance(action, argparse._SubParsersAction):
                texts.extend(str(a.help) for a in action._choices_actions)
                for sub in action.choices.values():
                    walk(sub)

    walk(build_parser())
    assert len(texts) > 50
    # Ids stand in brackets ("(S1–S7)", "(R4)"); "S3" the storage service does not.
    assert not [h for h in texts if re.search(r"\([^)]*\b[ICMRSW][1-9]\d?\b[^)]*\)", h)]
