"""The engine's words that people read, in their language (issue 21; no Qt here — SPEC C: core never imports Qt).

Marked with ``t("English text")`` (placeholders as ``{name}``, filled by ``.format`` after translation) and
looked up in ``resources/i18n/<language>.json`` (English → translation). The console sets the language it
shows (``set_language``); the command line follows ``BINY_LANG``, else the locale (``LC_ALL``,
``LC_MESSAGES``, ``LANG``) — ``zh…`` gives Simplified Chinese. A text without a translation stays English.
``tests/core/test_i18n.py`` checks that every marked text has one.

Words a result carries — a trace stage's summary, why a passage was dropped, an answer's note — are made with
``msg("English text")`` instead: a ``Msg`` keeps the English and its values and is put into the interface's
language only when shown (``str(m)``), by the console, the command line or ``--json``. A result outlives the
language it was computed under (the console switches language; a trace is read later), and core has no business
choosing the reader's language at compute time (issue 56). Errors keep ``t``: they are shown when raised.

Answers are another matter: "not in your material" and composed answers follow the *question's* language
(answer/compose.py), whatever the interface speaks.
"""

from __future__ import annotations

import errno
import functools
import json
import os
from collections.abc import Mapping
from importlib import resources
from typing import TypeAlias

SHIPPED = ("en", "zh_CN")
_chosen: str | None = None


def _from_environment() -> str:
    for var in ("BINY_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh_CN" if value.lower().startswith("zh") else "en"
    return "en"


def set_language(code: str | None) -> None:
    """``"en"``, ``"zh_CN"``, or None to follow the environment again."""
    global _chosen
    _chosen = code if code in SHIPPED else (None if code is None else "en")


def language() -> str:
    return _chosen or _from_environment()


@functools.cache
def catalog(code: str) -> dict[str, str]:
    """English → ``code``'s text (empty for English)."""
    if code == "en":
        return {}
    path = resources.files("biny.resources").joinpath(f"i18n/{code}.json")
    return dict(json.loads(path.read_text("utf-8")))


def N_(text: str) -> str:  # gettext's name for "mark now, translate where shown"
    """Mark ``text`` for the catalogue where it is defined (a module-level table) and return it unchanged;
    ``t(text)`` translates it where it is shown, in the language chosen by then."""
    return text


def t(text: str) -> str:
    """``text`` in the interface language; the English text when it has no translation."""
    return catalog(language()).get(text, text)


# One piece of a Msg: its text, whether the text is a catalogue entry (else shown as is: a name, a number, "; "),
# and the values its placeholders take (None: not formatted — braces shown as written).
_Piece: TypeAlias = tuple[str, bool, Mapping[str, object] | None]


class Msg:
    """Words for people, put into the interface's language when shown, not when made (issue 56).

    ``msg("{n} kept").format(n=3)`` records the English and the value; ``str()`` renders it in the language
    chosen by then. Messages join with ``+`` (with each other or with plain text), and a message may be the value
    of another's placeholder. Comparing with a ``str`` compares the rendered text.
    """

    __slots__ = ("_pieces",)

    def __init__(self, *pieces: _Piece) -> None:
        self._pieces = pieces

    def format(self, **values: object) -> Msg:
        """The message with its placeholders' values; only for one catalogue text, as ``str.format`` is."""
        if len(self._pieces) != 1 or not self._pieces[0][1] or self._pieces[0][2] is not None:
            raise TypeError(f"format() takes one unformatted catalogue text, not {self!r}")
        return Msg((self._pieces[0][0], True, dict(values)))

    def __str__(self) -> str:
        return "".join(_render(piece) for piece in self._pieces)

    def __format__(self, spec: str) -> str:  # an f-string shows it: rendered then, in the language chosen by then
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Msg({str(self)!r})"

    def __contains__(self, part: str) -> bool:  # what a reader would see holds ``part`` (tests read reasons so)
        return part in str(self)

    def __bool__(self) -> bool:
        return any(text for text, _, _ in self._pieces)

    def __add__(self, other: str | Msg) -> Msg:
        return Msg(*self._pieces, *_pieces_of(other))

    def __radd__(self, other: str) -> Msg:
        return Msg(*_pieces_of(other), *self._pieces)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Msg):
            return self._pieces == other._pieces
        return isinstance(other, str) and str(self) == other

    __hash__ = None  # type: ignore[assignment]  # equal to a str by its rendering, which the language changes


Said: TypeAlias = str | Msg  # words a record carries: plain text (a name, an error's own words) or a message


def msg(text: str) -> Msg:
    """Mark ``text`` for the catalogue; it is translated when the message is shown (``str()``)."""
    return Msg((text, True, None))


def as_msg(words: Said) -> Msg:
    """``words`` as a message: plain text is looked up in the catalogue when shown (an English note kept as is)."""
    return words if isinstance(words, Msg) else msg(words)


def worded(data: object) -> object:
    """``data`` (dicts, lists and tuples of plain values) with every message in it rendered: ready for JSON."""
    if isinstance(data, Msg):
        return str(data)
    if isinstance(data, dict):
        return {k: worded(v) for k, v in data.items()}
    if isinstance(data, list):
        return [worded(v) for v in data]
    if isinstance(data, tuple):
        return tuple(worded(v) for v in data)
    return data


def _pieces_of(words: Said) -> tuple[_Piece, ...]:
    return words._pieces if isinstance(words, Msg) else ((words, False, None),)


def _render(piece: _Piece) -> str:
    text, translate, values = piece
    shown = t(text) if translate else text
    if values is None:
        return shown
    return shown.format(**{k: str(v) if isinstance(v, Msg) else v for k, v in values.items()})


# The operating system's reasons, which Python gives in English ("No such file or directory"), in the interface's
# language (issue 60: one showed inside a Chinese screen).
_OS_REASONS = {
    errno.ENOENT: N_("no such file or folder"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.EISDIR: N_("it is a folder, not a file"),
    errno.ENOTDIR: N_("a part of the path is not a folder"),
    errno.ENOSPC: N_("no space left on the disk"),
    errno.EROFS: N_("the disk is read-only"),
    errno.ECONNREFUSED: N_("connection refused (is the server running?)"),
}


def os_reason(exc: OSError) -> str:
    """Why an operating-system call failed, in the interface's language when the reason is a common one."""
    reason = _OS_REASONS.get(exc.errno or -1)
    return t(reason) if reason else (exc.strerror or str(exc))
