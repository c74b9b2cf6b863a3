"""The engine's words that people read, in their language (issue 21; no Qt here — SPEC C: core never imports Qt).

Marked with ``t("English text")`` (placeholders as ``{name}``, filled by ``.format`` after translation) and
looked up in ``resources/i18n/<language>.json`` (English → translation). The console sets the language it
shows (``set_language``); the command line follows ``BINY_LANG``, else the locale (``LC_ALL``,
``LC_MESSAGES``, ``LANG``) — ``zh…`` gives Simplified Chinese. A text without a translation stays English.
``tests/core/test_i18n.py`` checks that every marked text has one.

Answers are another matter: "not in your material" and composed answers follow the *question's* language
(answer/compose.py), whatever the interface speaks.
"""

from __future__ import annotations

import errno
import functools
import json
import os
from importlib import resources

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
