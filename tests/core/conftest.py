"""Fixtures of the core tests shared across modules."""

from __future__ import annotations

import pytest

from tests.core.beside import Beside, ingest_beside_readers


@pytest.fixture(scope="session")
def ingested_beside_readers(tmp_path_factory: pytest.TempPathFactory) -> Beside:
    """200 notes ingested by one process while another reads (issue 58), once a session: the concurrency test
    checks the run, the resume test compares its resumed space with this clean one."""
    return ingest_beside_readers(tmp_path_factory.mktemp("beside"))
