"""The README's commands run as written, in order, on a fresh data folder — so the walkthrough cannot drift
from what biny does. Also: docs/settings.md is what core/config.py says, and comments cite only files and
requirement ids that exist."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import tokenize
from pathlib import Path

import pytest

from biny.core.cli import main
from biny.core.settings_doc import render
from tests.conftest import ROOT

README = ROOT / "README.md"
SETUP_COMMANDS = {"make console", "make test"}  # the two set-up commands: CI runs `make test` itself


def readme_blocks() -> list[list[str]]:
    """The ```sh blocks of the README, each as its command lines."""
    text = README.read_text(encoding="utf-8")
    return [[line for line in block.splitlines() if line.strip()]
            for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S)]


def test_readme_gives_the_two_setup_commands() -> None:
    lines = [line.strip() for block in readme_blocks() for line in block]
    assert SETUP_COMMANDS <= set(lines)
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8"), "CI must run the README's command"


@pytest.mark.slow
def test_every_readme_command_runs_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # The repository's inputs, seen from a scratch folder so the commands' outputs land there.
    for name in ("resources", "docs"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BINY_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("BINY_PASSPHRASE", raising=False)
    ran = 0
    for block in readme_blocks():
        for line in block:
            words = shlex.split(line, comments=True)
            if not words or " ".join(words) in SETUP_COMMANDS:
                continue
            if words[0] == "source" and words[1:] == [".venv/bin/activate"]:
                continue  # puts `biny` on PATH; here it is called in-process
            if words[0] == "export":
                name, _, value = words[1].partition("=")
                monkeypatch.setenv(name, value)
                continue
            assert words[0] == "biny", f"README line the test cannot run: {line!r} (add it here, or keep to biny)"
            code = main(words[1:])
            out, err = capsys.readouterr()
            assert code == 0, f"README line exits {code}: {line}\n{out[-2000:]}\n{err[-2000:]}"
            ran += 1
    assert ran >= 25


def test_settings_reference_is_generated_from_the_code() -> None:
    committed = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert committed == render(), "docs/settings.md is stale: python -m biny.core.settings_doc > docs/settings.md"
    assert "|  |" not in committed, "a setting without a comment saying what it does"


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.string.lstrip("rbuf")[:3] in
                                            ('"""', "'''")):
            out.append((tok.start[0], tok.string))
    return out


def _tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


# Named in comments but not files of this repository: an upstream project's name.
NOT_FILES = {"langid.py"}


def test_comments_cite_files_and_requirements_that_exist() -> None:
    files = _tracked()
    cited_file = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.(?:md|py|jsonl|ts))\b")
    cited_id = re.compile(r"\b([ICMRSW][1-9]\d?)[ab]?\b")
    ids = set(re.findall(r"\*\*([ICMRSW]\d+)\b", (ROOT / "docs" / "requirements.md").read_text(encoding="utf-8")))
    missing_files, missing_ids = [], []
    for name in files:
        if not name.endswith(".py"):
            continue
        for line, text in _comments_and_docstrings(ROOT / name):
            for m in cited_file.finditer(text):
                ref = m.group(1)
                if ref not in NOT_FILES and not any(f == ref or f.endswith("/" + ref) for f in files):
                    missing_files.append(f"{name}:{line} cites {ref}")
            if "SPEC" in text or re.search(r"\b[ICMRSW]\d+[ab]?\s*[:,)–/]", text):
                missing_ids += [f"{name}:{line} cites {i}" for i in cited_id.findall(text) if i not in ids]
    assert not missing_files, missing_files
    assert not missing_ids, missing_ids
