"""Every input bounded in kind and time (issue 59).

Only regular files are read: a named pipe waits forever for a writer, ``/dev/zero`` and ``/dev/urandom``
never end, a socket is not a document — each is refused by its type (``os.stat``, following links) before
anything opens it. Text with no sentence structure (megabytes of one word, a minified line) is cut into
bounded pieces before the splitter sees it, and splitting one document has a time budget that ends in an
error naming the file and the setting.
"""

from __future__ import annotations

import os
import re
import stat
import time
from itertools import pairwise
from pathlib import Path

from biny.core.document import Block
from biny.core.errors import DocumentTooLarge, UnsupportedFormat
from biny.core.i18n import N_, t

_KINDS = ((stat.S_ISFIFO, N_("a named pipe (FIFO)")), (stat.S_ISCHR, N_("a character device")),
          (stat.S_ISBLK, N_("a block device")), (stat.S_ISSOCK, N_("a socket")), (stat.S_ISDIR, N_("a folder")))


def regular_file(path: Path) -> os.stat_result:
    """``path``'s stat when it is a regular file (through links); else an error saying what it is."""
    try:
        st = os.stat(path)
    except FileNotFoundError as exc:
        raise UnsupportedFormat(t("{name} does not exist (or is a link to nothing).").format(name=path)) from exc
    if stat.S_ISREG(st.st_mode):
        return st
    what = next((t(kind) for test, kind in _KINDS if test(st.st_mode)), t("not a regular file"))
    link = f" → {os.path.realpath(path)}" if os.path.islink(path) else ""
    raise UnsupportedFormat(t("{name}{link} is {what}, not a regular file; only regular files are read (a pipe "
                              "or a device may never end). Copy its content into a file and add that.")
                            .format(name=path.name, link=link, what=what))


# A stretch this long with no sentence end and no line break is not prose; it is cut into pieces of about
# PIECE_CHARS at spaces (or anywhere, for text without spaces). Measured (bench/hostile_inputs.py): 5 MB of one
# word repeated took 58 s to split word by word; cut first, it takes a second or two.
MAX_RUN_CHARS = 2000
PIECE_CHARS = 400
_SENTENCE_END = re.compile(r"[.!?;:。！？；：…]\s|[。！？；]|\n")


def _cut(text: str) -> list[str]:
    """``text`` (one run without structure) in pieces of at most PIECE_CHARS, cut at a space where one is near."""
    out: list[str] = []
    s = 0
    while s < len(text):
        e = min(s + PIECE_CHARS, len(text))
        if e < len(text):
            space = text.rfind(" ", s + PIECE_CHARS // 2, e)
            e = space + 1 if space > 0 else e
        if text[s:e].strip():
            out.append(text[s:e].strip())
        s = e
    return out


def bounded_blocks(blocks: list[Block]) -> tuple[list[Block], int]:
    """``blocks`` with every run of more than MAX_RUN_CHARS without a sentence end or line break cut into
    pieces (each its own block, on the same page); and how many runs were cut."""
    out: list[Block] = []
    cut = 0
    for block in blocks:
        text = block.text
        if block.heading_level or len(text) <= MAX_RUN_CHARS:
            out.append(block)
            continue
        ends = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
        if max(b - a for a, b in pairwise(ends)) <= MAX_RUN_CHARS:
            out.append(block)
            continue
        kept = 0
        for a, b in pairwise(ends):
            if b - a <= MAX_RUN_CHARS:
                continue
            if text[kept:a].strip():
                out.append(Block(text[kept:a].strip(), block.page))
            out += [Block(piece, block.page) for piece in _cut(text[a:b])]
            kept = b
            cut += 1
        if text[kept:].strip():
            out.append(Block(text[kept:].strip(), block.page))
    return out, cut


class SplitBudget:
    """A time budget for cutting one document into passages: checked on every size estimate (the splitter's
    inner step), so no input keeps the ingest busy past it without saying so."""

    def __init__(self, seconds: float, name: str) -> None:
        self.seconds = seconds
        self.name = name
        self.ends = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.ends:
            raise DocumentTooLarge(
                t("{name}: cutting it into passages took longer than {seconds:g} s (limits.split_timeout_s). Text "
                  "without sentences or line breaks, or an extremely wide table? Split the file, or raise the "
                  "limit.").format(name=self.name, seconds=self.seconds))
