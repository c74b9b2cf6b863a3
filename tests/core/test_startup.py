"""Issue 58: `biny ask` starts as fast as it can — what its modules import, checked in a fresh interpreter.

A behaviour test, not a timing one (the figures are in bench/startup.py and bench/README.md): the command line and
the engine must not load Qt, matplotlib, torch or sentence-transformers, nor the web's and the document readers'
libraries, on paths that do not use them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

NEVER = ("PySide6", "matplotlib", "torch", "sentence_transformers")
ONLY_WHEN_USED = ("httpx", "trafilatura", "docx", "fitz", "rapidocr", "openpyxl", "faiss")


def _loaded(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


@pytest.mark.parametrize("module", ["biny.core.cli", "biny.core.engine", "biny.core"])
def test_the_command_line_and_the_engine_load_no_heavy_library(module: str) -> None:
    loaded = _loaded(f"import {module}")
    assert not loaded & set(NEVER), loaded & set(NEVER)
    assert not loaded & set(ONLY_WHEN_USED), loaded & set(ONLY_WHEN_USED)


def test_asking_loads_neither_qt_nor_torch_nor_the_readers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    code = (f"from biny.core.engine import Engine\n"
            f"e = Engine.open({str(home)!r})\n"
            f"e.create_space('s', encrypted=False)\n"
            f"e.ask('s', 'what is in here?')\n"
            f"e.close()")
    loaded = _loaded(code)
    assert not loaded & set(NEVER), loaded & set(NEVER)
    assert not loaded & {"httpx", "trafilatura", "docx", "fitz", "rapidocr"}
