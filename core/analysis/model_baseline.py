"""A model-level unrelated baseline, beside each space's own (SPEC R9, C3).

In a single-topic space, chunks of different documents are not unrelated (measured: 0.10
against 0.254 for the space's unrelated pairs), so the model's own scale needs material that
is unrelated by construction: the bundled everyday questions (8 languages) against bundled
passages on other subjects (tax invoices, railway signalling, containers, chess, concrete,
guilds, lithography, copyright — the same eight in six languages; resources/baseline,
written for biny). The band is kept per language pair, question script → passage script,
because zh→en distances sit apart from zh→zh.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np

from biny.core import state
from biny.core.embed.base import Embedder
from biny.core.retrieve.baseline import Distribution, question_vectors
from biny.core.text.scripts import LANG_SCRIPT

# Per model: the bands depend only on it and the bundled sets (core/state.py PROCESS).
_BANDS: dict[str, dict[str, Distribution]] = {}
state.register("biny.core.analysis.model_baseline._BANDS", state.PROCESS, _BANDS.clear)


def load_passages() -> list[tuple[str, str]]:
    """(script group, passage) of the bundled unrelated passages."""
    text = resources.files("biny.resources").joinpath("baseline/passages.jsonl").read_text("utf-8")
    return [(LANG_SCRIPT.get(r["lang"], "all"), r["passage"]) for r in map(json.loads, text.splitlines()) if r]


def bands(embedder: Embedder, cache_dir: Path) -> dict[str, Distribution]:
    """"question script→passage script" → distribution of each question's nearest-passage distance."""
    cached = _BANDS.get(embedder.model_id)
    if cached is not None:
        return cached
    q_scripts, q_vecs = question_vectors(embedder, cache_dir)
    passages = load_passages()
    p_vecs = embedder.embed_passages([p for _, p in passages])
    p_scripts = np.asarray([s for s, _ in passages])
    q_arr = np.asarray(q_scripts)
    out: dict[str, Distribution] = {}
    for qs in sorted(set(q_scripts)):
        for ps in sorted(set(p_scripts.tolist())):
            d = 1.0 - (q_vecs[q_arr == qs] @ p_vecs[p_scripts == ps].T).max(axis=1)
            out[f"{qs}→{ps}"] = Distribution.of(d.astype(np.float32))
    _BANDS[embedder.model_id] = out
    return out
