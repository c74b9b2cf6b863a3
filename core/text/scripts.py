"""Script groups of a text: which writing systems it uses (SPEC R2, R9 per-script references)."""

from __future__ import annotations

import re

from biny.core.i18n import N_, t

# Script groups (kana before han: Japanese writes both).
SCRIPTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("kana", re.compile(r"[\u3040-\u30ff]")),
    ("hangul", re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")),
    ("han", re.compile(r"[\u3400-\u9fff]")),
    ("cyrillic", re.compile(r"[\u0400-\u04ff]")),
    ("arabic", re.compile(r"[\u0600-\u06ff\u0750-\u077f]")),
    ("devanagari", re.compile(r"[\u0900-\u097f]")),
    ("thai", re.compile(r"[\u0e00-\u0e7f]")),
    # Latin with Vietnamese's stacked diacritics (U+1E00–U+1EFF, "ệ", "ữ").
    ("latin", re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")),
)


# What a person reads for a script group in a sentence ("unrelated Chinese questions"), translated where shown.
_NAMES = {"kana": N_("Japanese"), "hangul": N_("Korean"), "han": N_("Chinese"), "cyrillic": N_("Cyrillic"),
          "arabic": N_("Arabic-script"), "devanagari": N_("Devanagari"), "thai": N_("Thai"),
          "latin": N_("Latin-script"), "all": N_("any-script")}


def script_name(group: str) -> str:
    """``group`` (``han``, ``latin`` …) as the interface language names it; unknown groups as they are.
    A model band's pair (``han→latin``) is named side by side."""
    if "→" in group:
        return "→".join(script_name(g) for g in group.split("→"))
    return t(_NAMES[group]) if group in _NAMES else group


# Most text read at question time is plain ASCII (English passages' sentences): one pattern decides it, not eight
# (issue 57: the answer stage asks this of every sentence of the context).
_ASCII_LETTER = re.compile(r"[A-Za-z]")


def scripts_of(text: str) -> set[str]:
    """Script groups making up at least a tenth of a text's letters (a name in passing does not count)."""
    if text.isascii():
        return {"latin"} if len(_ASCII_LETTER.findall(text)) >= 2 else set()
    counts = {name: len(rx.findall(text)) for name, rx in SCRIPTS}
    total = sum(counts.values())
    return {name for name, c in counts.items() if c >= 2 and c >= 0.1 * total}




# The bundled reference questions are labelled by language; this is their script group.
LANG_SCRIPT = {"ja": "kana", "ko": "hangul", "zh": "han", "ru": "cyrillic", "ar": "arabic", "hi": "devanagari",
               "th": "thai", "en": "latin", "de": "latin", "es": "latin", "fr": "latin", "vi": "latin"}


def script_of(text: str) -> str:
    """The script group a question is written in (kana before han: Japanese uses both)."""
    if text.isascii():
        return "latin" if _ASCII_LETTER.search(text) else "all"
    counts = {name: len(rx.findall(text)) for name, rx in SCRIPTS}
    if counts["kana"] >= 2:
        return "kana"
    if counts["hangul"] >= 2:
        return "hangul"
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] else "all"
