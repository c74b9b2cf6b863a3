"""How the sentence check's reading of a passage moves if it read the stored sentence vectors (issue 57).

The sentence check (core/retrieve/sentences.py) embeds each sentence of a passage, alone and with the next, under
the passage's contextual header at question time, and its windows were fitted on that reading. The vectors stored
at ingest are the answer's units embedded bare, and a pair is their weighted mean (embed/sentences.py
``placed_all``). For the first ``--top`` passages of each natural question's pool this prints, per corpus, the mean
and sd of (the nearest sentence as the check reads it now − the same from stored vectors): raw, and with the pair's
own bias added back to stored pairs (bench/pair_bias.py: 0.0073).

Run: ``python bench/check_reading.py --home DIR [--split dev] [--top 3]`` (the ``nat-*`` spaces of
``eval_natural.py``).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_natural as en

from biny.core.chunking.header import embedding_input
from biny.core.embed.sentences import placed_all
from biny.core.engine import Engine
from biny.core.text.units import units_of

PAIR_BIAS = 0.0073  # a stored pair lies this much nearer than the pair embedded as one text (bench/pair_bias.py)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--split", default="dev", choices=["dev", "test", "fresh"])
    ap.add_argument("--top", type=int, default=3)
    args = ap.parse_args()
    found: dict[str, list[tuple[float, float, float]]] = {}
    with Engine.open(args.home) as eng:
        eng.models.set_llm(None)
        for r in en.load(args.split):
            space, question = f"nat-{r['corpus']}", str(r["question"])
            res = eng.ask(space, question)
            row = eng.catalog.spaces.named(space)
            vm = eng._retriever.matrix(row)
            crypto = eng._retriever.keys.crypto(row)
            titles = {d.doc_id: d.title for d in eng.catalog.docs.of(row.space_id)}
            q = eng.models.embed_queries([question])[0]
            ids = res.pool[: args.top]
            rows = [vm.chunk_ids.index(c) for c in ids]
            recs = eng.chunks.fetch(row.space_id, ids, [int(vm.stored[x]) for x in rows])
            for chunk_id, x in zip(ids, rows, strict=True):
                rec = recs.get(chunk_id)
                stored = eng._retriever.stored_sentences.for_rows(row, vm, [x])[0]
                if rec is None or stored is None:
                    continue
                rec = crypto.open_record(rec)
                units = [u.text for u in units_of(rec.text)]
                if len(units) != len(stored) or len(units) < 2:
                    continue  # nothing finer than the passage to read
                title = titles.get(rec.doc_id, "")
                texts = [embedding_input(title, rec.heading_path, u) for u in units] + \
                    [embedding_input(title, rec.heading_path, f"{a} {b}") for a, b in itertools.pairwise(units)]
                now = float(np.min(1.0 - eng.models.embedder.embed_passages(texts) @ q))
                alone = float(np.min(1.0 - stored @ q))
                paired = float(np.min(1.0 - placed_all(stored) @ q))
                found.setdefault(str(r["corpus"]), []).append(
                    (now - alone, now - min(alone, paired), now - min(alone, paired + PAIR_BIAS)))
    print(f"{'corpus':<12}{'passages':>9}  {'units only':>16}  {'raw':>16}  {'pair bias added':>16}")
    every = [x for v in found.values() for x in v]
    for name, values in [*sorted(found.items()), ("all", every)]:
        a = np.asarray(values)
        cells = "  ".join(f"{a[:, i].mean():+.4f} ({a[:, i].std():.4f})" for i in range(3))
        print(f"{name:<12}{len(a):>9}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
