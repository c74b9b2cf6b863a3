"""How the C heap holds LanceDB's read buffers (issue 57: peak RSS of the cost curve).

LanceDB decodes a scan on its own worker threads with the C allocator. glibc serves a block of 128 KB or more with
its own mapping, returned to the system on free — until the first such block is freed: from then on the threshold
follows the largest block freed (up to 32 MB), so a scan's multi-megabyte decode buffers come from the threads'
arenas and, once freed, stay mapped there, between live blocks that keep the next scan from reusing them. Every
large read (the matrix load, the row-code check, the term scan, the context view) then left the process hundreds
of MB larger than what it kept. Measured on a 100,007-passage space, peak RSS of ``biny ask --answer``: 1.51 GB
as glibc sets the threshold, 1.02–1.06 GB with it fixed at 128 KB–1 MB (bench/README.md, issue 57, continued).

``settle`` fixes it at ``MMAP_THRESHOLD`` once per process (not when the user set ``MALLOC_MMAP_THRESHOLD_``);
``give_back`` returns the heap's free pages after a large read. Elsewhere than glibc both do nothing: other
allocators return memory on their own schedule, and nothing here depends on them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os
import sys
from typing import Any

M_MMAP_THRESHOLD = -3  # mallopt parameter (malloc.h)
MMAP_THRESHOLD = 1 << 20  # blocks this large get their own mapping, freed to the system at once


@functools.cache
def _glibc() -> Any | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim, libc.mallopt  # noqa: B018 — glibc has both; musl has neither
    except (OSError, AttributeError):
        return None
    return libc


@functools.cache
def settle() -> bool:
    """Fix the heap's mapping threshold for the process; True if it was set here."""
    libc = _glibc()
    if libc is None or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def give_back() -> bool:
    """Return the C heap's free pages to the system; True if the allocator has a way to (glibc)."""
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def keep_out_of_collections() -> None:
    """Move every object Python's cyclic collector tracks so far out of its reach (``gc.freeze``), after a space's
    rows are loaded (issue 57). What is loaded then — the imported modules, the model, the rows' aspect sets and
    lookups — lives as long as the space stays loaded, yet every full collection walked all of it: ≈150 ms once
    in about a hundred questions at 10k passages, 1.2–1.4 s at 1M (bench/README.md). Frozen objects are still freed
    by their reference counts; ``let_collections_in`` hands them back when the folder is closed, so that what
    became cyclic garbage since is collected."""
    gc.freeze()


def let_collections_in() -> None:
    """Undo ``keep_out_of_collections``: the frozen objects become the collector's again."""
    gc.unfreeze()
