"""The one-writer rule, enforced: mutating store methods run only inside the writer.

``StoreWriter`` enters ``writing()`` around each of its operations; every method of
the stores that changes LanceDB or DuckDB is marked ``@mutation`` and refuses to run
outside it. A read that writes (a migration inside a scan, a baseline saved while
answering) therefore fails loudly in tests instead of racing another write.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from biny.core import state
from biny.core.errors import BinyError
from biny.core.i18n import t

P = ParamSpec("P")
R = TypeVar("R")

_state = threading.local()

# Qualified names of every guarded method: the test of the rule checks it covers them all.
MUTATIONS: set[str] = set()


class WriteOutsideWriter(BinyError):
    """A store was changed by code other than ``StoreWriter`` (a bug, not a user error)."""


def _bump() -> None:
    state.bump_stamp()  # the stamp lives in the process's registry (core/state.py), reset with it


def retire_reads() -> None:
    """Retire every read cache, as a write would (a team space's reader after a refresh)."""
    _bump()


def write_stamp() -> int:
    """Changes whenever a write starts or ends: a read cache tagged with the stamp taken before its read
    is valid while the stamp is unchanged (a read overlapping a write gets a stamp the write's end retires)."""
    return state.stamp()


@contextmanager
def writing() -> Iterator[None]:
    _state.depth = getattr(_state, "depth", 0) + 1
    _bump()
    try:
        yield
    finally:
        _state.depth -= 1
        _bump()


def in_writer() -> bool:
    return getattr(_state, "depth", 0) > 0


def mutation(fn: Callable[P, R]) -> Callable[P, R]:
    """Mark a store method as a write: it may only run inside ``writing()``."""
    MUTATIONS.add(fn.__qualname__)

    @functools.wraps(fn)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        if not in_writer():
            raise WriteOutsideWriter(
                t("{function} changes stored data and must go through the single writer "
                  "(biny.core.store.writer.StoreWriter). This is a bug in biny; please report it.")
                 .format(function=fn.__qualname__)
            )
        return fn(*args, **kwargs)

    return guarded
