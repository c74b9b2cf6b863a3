"""Which language a Latin-script text is written in (issue 20: words are evidence only within one language).

Scripts tell Chinese from English, not German from English: a German question over English articles shares
none of their words, yet both are Latin script, so the word check asked German words of English passages and
dropped the answers (de→en 0.285 answered where 0.950 were found, bench/README.md). Chunks written in the Latin
script carry their language as a mark (``lang:de``), and the question's language decides which passages its
words are asked of. ``py3langid`` (langid.py's model, bundled in the package, BSD-3) identifies a question in
about 0.05 ms; measured on XQuAD questions: 0.99–1.00 right for en, de, es and vi.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from biny.core.text.scripts import scripts_of

# Below this normalised probability a question's language is not trusted (short or mixed questions): its
# words are then asked of every passage in its script, as before.
MIN_PROBABILITY = 0.5
TAGGED = "lang:*"  # every chunk whose language was recorded carries this mark beside ``lang:<code>``

log = logging.getLogger(__name__)


_lock = threading.Lock()
_loaded: list[Any] = []  # [the identifier or None] once loading was tried


def _identifier() -> Any:
    # Loading takes about a second (the model is xz-compressed): once per process, other callers wait for it.
    with _lock:
        if not _loaded:
            _loaded.append(_load())
        return _loaded[0]


def _load() -> Any:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    except (OSError, ValueError) as e:  # a damaged install: languages go unrecorded, nothing else changes
        log.warning("language identification unavailable: %s", e)
        return None


def warm() -> None:
    """Load the identifier in the background, so the first Latin-script question or ingest does not wait ~1 s."""
    if not _loaded:
        threading.Thread(target=_identifier, name="biny-language-model", daemon=True).start()


def language_of(text: str) -> str | None:
    """ISO 639 code of a Latin-script text's language, or None (another script, unsure, or no model)."""
    if scripts_of(text) != {"latin"}:
        return None
    ident = _identifier()
    if ident is None:
        return None
    code, prob = ident.classify(text)
    return str(code) if prob >= MIN_PROBABILITY else None


def passage_language(text: str) -> str | None:
    """``language_of`` for a passage's sentence (the question has its own, parsed once: text/question.py)."""
    return language_of(text)


def language_marks(text: str) -> set[str]:
    """The marks ingest stores beside a chunk's aspects: ``lang:<code>`` and ``TAGGED``, or none."""
    code = language_of(text)
    return {f"lang:{code}", TAGGED} if code else set()
