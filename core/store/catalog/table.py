"""The catalog's one DuckDB connection, and the base of its per-table classes.

One connection is shared between threads, so every use takes ``Db.lock``; writes come only from
``store.writer.StoreWriter`` (each is marked ``@mutation``). Values are always bound as parameters.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from biny.core.store.guard import in_writer


class Db:
    """The catalog file's connection; ``Catalog.rewrite``/``reopen`` swap ``con`` under ``lock``.

    ``shared`` (a local data folder, issue 58): other processes read the same file while one writes it, and DuckDB
    lets a file be open either read-write by one process or read-only by any number. So the connection is opened
    for a use and closed soon after: read-only for reads (closed once idle for ``IDLE_S``), read-write only inside
    the writer's operations (``writing``, closed when the last one ends). Opening waits, up to ``WAIT_S``, while
    another process holds the file the other way; each side holds it only for a short step, never an ingest's
    embedding. Not shared (a team space's local snapshot, tests of one process): one read-write connection for
    the object's life.
    """

    IDLE_S = 0.25
    WAIT_S = 120.0

    def __init__(self, path: Path, *, shared: bool = False) -> None:
        self.path = path
        self.shared = shared
        self._lock = threading.RLock()
        self._depth = 0
        self._writes = 0
        self._rw = False
        self._last = 0.0
        self._timer: threading.Timer | None = None
        self._con: duckdb.DuckDBPyConnection | None = None
        if not shared or not path.exists():
            self._open(read_only=False)  # a new catalog is created read-write (the writer migrates it next)

    # ---- the connection ----------------------------------------------------------------------
    @property
    def lock(self) -> DbUse:
        """Entered around every use of ``con``: serialises threads and, when shared, opens the connection."""
        return DbUse(self)

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            # Inside the single writer's guard (store/guard.py) a connection is read-write too: a repair or a
            # test's damage done behind the writer's back, as an older biny would have.
            want_rw = not self.shared or self._writes > 0 or in_writer()
            if self._con is None or (want_rw and not self._rw and self._depth <= 1):
                self._open(read_only=not want_rw)
            assert self._con is not None
            return self._con

    @con.setter
    def con(self, value: duckdb.DuckDBPyConnection) -> None:
        self._con, self._rw = value, True

    def _open(self, *, read_only: bool) -> None:
        self._close()
        deadline = time.monotonic() + self.WAIT_S
        pause = 0.01
        while True:
            try:
                self._con = duckdb.connect(str(self.path), read_only=read_only)
                self._rw = not read_only
                return
            except (duckdb.IOException, duckdb.ConnectionException) as exc:
                # Another process holds the file the other way (a commit, a read): each holds it for a short step.
                # (In this process, another catalog object of the folder holding it the other way says
                # "different configuration".)
                busy = "lock" in str(exc).lower() or "different configuration" in str(exc)
                if not busy or time.monotonic() > deadline:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 0.2)

    def _close(self) -> None:
        if self._con is not None:
            con, self._con = self._con, None
            con.close()

    def _enter(self) -> None:
        self._lock.acquire()
        self._depth += 1

    def _exit(self) -> None:
        try:
            self._depth -= 1
            if self.shared and self._depth == 0 and self._writes == 0 and self._con is not None:
                self._last = time.monotonic()
                if self._rw:
                    self._close()  # what the writer committed is readable by others now
                elif self._timer is None:
                    self._timer = threading.Timer(self.IDLE_S, self._close_if_idle)
                    self._timer.daemon = True
                    self._timer.start()
        finally:
            self._lock.release()

    def _close_if_idle(self) -> None:
        with self._lock:
            self._timer = None
            if self._depth or self._writes or self._con is None:
                return
            idle = time.monotonic() - self._last
            if idle >= self.IDLE_S:
                self._close()
            else:
                self._timer = threading.Timer(self.IDLE_S - idle, self._close_if_idle)
                self._timer.daemon = True
                self._timer.start()

    @contextmanager
    def writing(self) -> Iterator[None]:
        """The writer's operation: the connection is read-write inside, closed when the outermost one ends."""
        with self._lock:
            self._writes += 1
            if self.shared and self._con is not None and not self._rw and self._depth == 0:
                self._close()
        try:
            yield
        finally:
            with self._lock:
                self._writes -= 1
                if self.shared and self._writes == 0 and self._depth == 0:
                    self._close()

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._close()


class DbUse:
    def __init__(self, db: Db) -> None:
        self.db = db

    def __enter__(self) -> DbUse:
        self.db._enter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.db._exit()


class Table:
    """One table's statements over the shared connection."""

    def __init__(self, db: Db) -> None:
        self.db = db

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.db.lock:
            return self.db.con.execute(sql, list(params)).fetchall()

    def _row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self.db.lock:
            return self.db.con.execute(sql, list(params)).fetchone()

    def _run(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self.db.lock:
            self.db.con.execute(sql, list(params))
