"""Characters-per-token estimated from the text itself (SPEC I6).

A global 4-chars-per-token constant is wrong for CJK, where one character is close
to one token. The estimate interpolates between a CJK and a Latin ratio by the
share of CJK characters. Interpolation is done on *tokens per character* (the
reciprocal), because token counts add up: a text with share s of CJK characters
costs s/CJK + (1-s)/LATIN tokens per character. That is exact for a mix, whereas
averaging chars-per-token would overestimate mixed text's capacity.

Constants calibrated with ``bench/calibrate_ratio.py`` against the
multilingual-e5-small tokenizer on ../shared/corpora (non-space characters per
content token): see that script's output in the chunking issue note.
"""

from __future__ import annotations

import re
from collections.abc import Callable

CJK_CHARS_PER_TOKEN = 1.45
LATIN_CHARS_PER_TOKEN = 3.18

# Han (incl. extension A and compatibility), Kana, Hangul, CJK punctuation/full-width forms.
_CJK = re.compile(
    r"[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    r"\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\uf900-\ufaff\uff00-\uffef]"
)
_SPACE = re.compile(r"\s+")


def cjk_share(text: str) -> float:
    """Share of non-space characters that are CJK (Han, Kana, Hangul)."""
    compact = _SPACE.sub("", text)
    if not compact:
        return 0.0
    return len(_CJK.findall(compact)) / len(compact)


def chars_per_token(share: float) -> float:
    """Interpolated non-space characters per token for a given CJK share."""
    share = min(max(share, 0.0), 1.0)
    return 1.0 / (share / CJK_CHARS_PER_TOKEN + (1.0 - share) / LATIN_CHARS_PER_TOKEN)


def estimate_tokens(text: str) -> float:
    """Token estimate of ``text`` without calling the tokenizer (cheap, used while splitting)."""
    compact = _SPACE.sub("", text)
    if not compact:
        return 0.0
    cjk = len(_CJK.findall(compact))
    return cjk / CJK_CHARS_PER_TOKEN + (len(compact) - cjk) / LATIN_CHARS_PER_TOKEN


class DocumentEstimator:
    """The interpolated estimate, corrected by a factor measured on this document.

    Prose, code and tables of the same script tokenise differently (Markdown with
    code runs ~10–20% denser than prose), so the splitter tokenises an evenly spread
    sample of the document's paragraphs with the real tokenizer and scales the
    interpolated estimate by measured/predicted. The interpolation still carries
    the CJK/Latin mix; the factor carries what the share cannot see.
    """

    def __init__(self, factor: float = 1.0) -> None:
        self.factor = factor

    def __call__(self, text: str) -> float:
        return estimate_tokens(text) * self.factor

    @classmethod
    def calibrate(
        cls, paragraphs: list[str], content_tokens: Callable[[str], int], samples: int = 24
    ) -> DocumentEstimator:
        usable = [p for p in paragraphs if 20 <= len(p) <= 1500]
        if not usable:
            return cls()
        step = max(1, len(usable) // samples)
        picked = usable[::step][:samples]
        predicted = sum(estimate_tokens(p) for p in picked)
        measured = sum(content_tokens(p) for p in picked)
        if predicted <= 0 or measured <= 0:
            return cls()
        return cls(min(max(measured / predicted, 0.5), 2.0))

    def chars_per_token(self, text: str) -> float:
        """Effective non-space characters per token for ``text`` under this estimator."""
        return chars_per_token(cjk_share(text)) / self.factor
