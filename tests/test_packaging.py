"""The folder → import-name mapping survives a real wheel install, and core never imports Qt."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.mark.slow
def test_wheel_installs_and_imports_in_a_fresh_venv(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist),
                            str(ROOT)], check=True, capture_output=True, text=True)
    # A data folder setuptools would have to guess at ("… is absent from the `packages` configuration").
    assert "absent from the `packages` configuration" not in built.stdout + built.stderr
    wheel = next(dist.glob("biny-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    py = env_dir / "bin" / "python"
    # No dependencies: this checks the mapping and package data, not PyPI.
    subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--quiet", str(wheel)], check=True)
    # Every source file must be in the wheel: a package missing from pyproject's list
    # would silently drop a folder.
    with zipfile.ZipFile(wheel) as zf:
        in_wheel = set(zf.namelist())
    for top in ("core", "console", "resources"):
        for src in (ROOT / top).rglob("*"):
            packaged = src.suffix in {".py", ".md", ".jsonl", ".html", ".ts"}
            if src.is_file() and packaged and "__pycache__" not in src.parts:
                assert f"biny/{src.relative_to(ROOT).as_posix()}" in in_wheel, f"{src} is not packaged"
    code = textwrap.dedent("""
        import importlib.resources as r, biny.core, biny.core.chunking.ratio as ratio, biny.console
        files = r.files("biny.resources")
        assert files.joinpath("baseline/questions.jsonl").read_text("utf-8").count("\\n") > 100
        assert files.joinpath("baseline/knowledge.jsonl").read_text("utf-8").count("\\n") > 150
        assert files.joinpath("demo/handbook.md").is_file()
        assert "site-packages" in biny.core.__file__
        print(ratio.chars_per_token(1.0))
    """)
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) > 1.0


def test_every_source_package_is_listed_for_the_wheel() -> None:
    # The fast half of the wheel test above: a new folder of modules that pyproject's explicit `packages`
    # list does not name would be dropped from the wheel, and only the slow test would notice.
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["packages"])
    for top in ("core", "console", "resources"):
        for init in (ROOT / top).rglob("__init__.py"):
            package = ".".join(("biny", *init.parent.relative_to(ROOT).parts))
            assert package in listed, f"{package} is missing from [tool.setuptools] packages in pyproject.toml"


def test_core_never_imports_qt() -> None:
    code = textwrap.dedent("""
        import sys, importlib, pkgutil
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {"PySide6", "PyQt5", "PyQt6", "shiboken6"}:
                    raise ImportError("Qt is blocked in core")
        sys.meta_path.insert(0, Block())
        import biny.core
        for mod in pkgutil.walk_packages(biny.core.__path__, "biny.core."):
            if not mod.name.endswith(".__main__"):  # `python -m biny.core.cli` runs the program when imported
                importlib.import_module(mod.name)
        assert not any(m.startswith("PySide6") for m in sys.modules)
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
