"""The console's language (issue 21): every string goes through Qt's translation system.

Strings are marked with ``tr("…")`` (this module's function; ``QT_TR_NOOP`` for tables built at import),
extracted by ``pyside6-lupdate`` into ``console/translations/biny_<lang>.ts`` — the sources, kept in the repo — and
compiled to ``.qm`` by ``pyside6-lrelease`` at setup (``make setup``; ``make translations`` redoes both) — or, when
the console was installed some other way, at its first start into the user's cache (``catalogue``).
All strings share one context (the empty one): the same English text is translated once, wherever it is.

The language follows the system locale unless the user chose one (Settings → Interface language, kept in
the console's QSettings); a change applies at the next start, when every widget is built in it. Numbers and
dates are formatted by ``QLocale()``, which follows the same choice.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import (
    QCoreApplication,
    QDateTime,
    QLibraryInfo,
    QLocale,
    QSettings,
    QStandardPaths,
    QTranslator,
)

from biny.core import set_language as set_engine_language

log = logging.getLogger(__name__)

FOLDER = Path(__file__).resolve().parent / "translations"
# (QSettings value, name shown in its own language); "" follows the system.
LANGUAGES = [("", "System"), ("en", "English"), ("zh_CN", "简体中文")]
_KEY = "language"
_installed: list[QTranslator] = []


def QT_TR_NOOP(text: str) -> str:
    """Mark ``text`` for extraction where it is translated later with ``tr(variable)`` (tables built at
    import). Qt's own marker is typed as returning ``object``; this one keeps the ``str``."""
    return text


def tr(text: str) -> str:
    """``text`` in the interface language (the English text when it has no translation)."""
    return QCoreApplication.translate("", text)


def chosen(settings: QSettings) -> str:
    """The language to use: the remembered choice, else the system locale's if shipped, else English."""
    value = str(settings.value(_KEY, "") or "")
    if value:
        return value
    system = QLocale.system()
    if system.language() == QLocale.Language.Chinese and system.script() != QLocale.Script.TraditionalHanScript:
        return "zh_CN"
    return "en"


def remember(settings: QSettings, language: str) -> None:
    settings.setValue(_KEY, language)


def install(language: str) -> bool:
    """Load ``language``'s translations (ours and Qt's own, for standard dialogs) into the application and make
    it the default locale for numbers and dates. Returns False when its compiled catalogue is missing."""
    set_engine_language(language)  # the engine's words shown on screen (proposal reasons …) follow too
    app = QCoreApplication.instance()
    for old in _installed:
        if app is not None:
            app.removeTranslator(old)
    _installed.clear()
    QLocale.setDefault(QLocale("en_US" if language == "en" else language))
    if language == "en" or app is None:
        return True
    ours = QTranslator()
    compiled = catalogue(language)
    if compiled is None or not ours.load(str(compiled)):
        log.warning("no translations for %s could be loaded or built from %s; English is used", language, FOLDER)
        QLocale.setDefault(QLocale("en_US"))
        return False
    qt = QTranslator()
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _installed.append(qt)
    app.installTranslator(ours)
    _installed.append(ours)
    return True


def catalogue(language: str, cache: Path | None = None) -> Path | None:
    """The compiled catalogue of ``language``: the one ``make setup`` built beside its source when it is current,
    else compiled now from the shipped ``.ts`` with PySide6's own ``lrelease`` into the user's cache — so a
    checkout installed with pip, a wheel, or a copied folder speaks Chinese too (issue 49). None without a
    source or a working ``lrelease``."""
    source, built = FOLDER / f"biny_{language}.ts", FOLDER / f"biny_{language}.qm"
    if built.is_file() and (not source.is_file() or built.stat().st_mtime >= source.stat().st_mtime):
        return built
    if not source.is_file():
        return None
    folder = cache or Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation) or
                           Path.home() / ".cache" / "biny") / "translations"
    target = folder / f"biny_{language}-{int(source.stat().st_mtime)}.qm"
    if target.is_file():
        return target
    import PySide6

    tool = Path(PySide6.__file__).resolve().parent / ("lrelease.exe" if sys.platform == "win32" else "lrelease")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(tool), "-silent", str(source), "-qm", str(target)], check=True, timeout=60,
                       capture_output=True)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("could not compile %s with %s: %s", source, tool, exc)
        return None
    return target if target.is_file() else None


def number(value: int | float, decimals: int = -1) -> str:
    """A number written the interface language's way (grouping, decimal sign)."""
    if isinstance(value, int):
        return QLocale().toString(value)
    return QLocale().toString(float(value), "f", decimals if decimals >= 0 else 2)


def date(when: datetime, *, with_time: bool = False) -> str:
    """A date (and time) in the interface language's short form, in local time."""
    stamp = QDateTime.fromSecsSinceEpoch(int(when.timestamp()))
    if with_time:
        return QLocale().toString(stamp, QLocale.FormatType.ShortFormat)
    return QLocale().toString(stamp.date(), QLocale.FormatType.ShortFormat)
