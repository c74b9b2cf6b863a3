"""Which cut separates answerable from unanswerable questions? Numbers, not guesses (R2, R9).

Run after ``bench/eval_retrieval.py`` has built its spaces: ``python bench/threshold_rules.py``.
For every answerable set (XQuAD en→en, zh→zh, zh→en, CMRC) and every unanswerable set
it records per question: the top-1 distance, the reference quantiles of the space
(unrelated questions → nearest passage, per script) and the standout
z = (median − d1) / MAD of the question's distances to all chunks, and the lexical
evidence of ``biny.core.retrieve.lexical`` (share of the question's words the space
knows; IDF-weighted share each top-5 chunk carries). It then scores candidate rules by
answerable recall (answer in the top 5 that survive) and the share of unanswerable
questions — from other corpora, in other and in the same script — that get zero chunks.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_retrieval import MemoEmbedder, cmrc_questions, xquad_questions

from biny.core.engine import Engine
from biny.core.retrieve.lexical import evidence
from biny.core.text.question import Question
from biny.core.text.scripts import script_of


def rows(eng: Engine, space: str, questions: list, answerable: bool) -> list[dict]:  # type: ignore[type-arg]
    row = eng.catalog.spaces.named(space)
    vm = eng.vectors.get(row.space_id, eng.catalog.docs.active_ids(row.space_id), row.dim)
    base = eng.retrieval.baselines(space)
    out = []
    for q in questions:
        qv = eng.models.embedder.embed_queries([q.text])[0]
        d = vm.distances(qv)
        order = np.argsort(d)[:5]
        med = float(np.median(d))
        mad = float(np.median(np.abs(d - med))) or 1e-6
        _group, ref = base.reference_for(Question.parse(q.text))
        lex = evidence(Question.parse(q.text), vm, eng.keys.crypto(row.name).blind)
        local = base.local_reference(_group, vm.matrix, [int(i) for i in order])
        hit_rank = None
        if answerable:
            records = eng.chunks.fetch(row.space_id, [vm.chunk_ids[i] for i in order])
            crypto = eng.keys.crypto(row.name)
            texts = [crypto.open_record(records[vm.chunk_ids[i]]).text for i in order]
            hits = [n for n, t in enumerate(texts) if q.check_text(t)]
            hit_rank = hits[0] if hits else None
        out.append({"d": [float(d[i]) for i in order], "z": (med - float(d[order[0]])) / mad,
                    "ref": {f"p{round(p * 100):02d}": ref.quantile(p) for p in (0.01, 0.05, 0.1, 0.2, 0.3, 0.5)}
                    if ref else {},
                    "hit_rank": hit_rank, "script": script_of(q.text), "known": lex.known_share,
                    "lex": [lex.coverage(vm.terms[i]) for i in order], "local": [float(x) for x in local]})
    return out


def score(rule, data_ans, data_unans):  # type: ignore[no-untyped-def]
    rec = [any(r["hit_rank"] == i and rule(r, i) for i in range(5)) for r in data_ans]
    zero = [not any(rule(r, i) for i in range(5)) for r in data_unans]
    return (float(np.mean(rec)) if rec else float("nan")), (float(np.mean(zero)) if zero else float("nan"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--dump", default="threshold_rows.json", help="per-question rows, for further analysis")
    args = ap.parse_args()
    rng = random.Random(20261130)
    with Engine.open(args.home, embedder=MemoEmbedder()) as eng:
        xq_en, _ = xquad_questions("en", args.n, rng)
        xq_zh, xq_zh_en = xquad_questions("zh", args.n, rng)
        cmrc = cmrc_questions(args.n, rng)
        for qs in (xq_en, xq_zh, xq_zh_en, cmrc):
            for q in qs:
                q.check_text = q.answer_in  # type: ignore[attr-defined]
        answerable = {"XQuAD en→en": rows(eng, "xquad-en", xq_en, True),
                      "XQuAD zh→zh": rows(eng, "xquad-zh", xq_zh, True),
                      "XQuAD zh→en": rows(eng, "xquad-en", xq_zh_en, True),
                      "CMRC zh": rows(eng, "cmrc", cmrc, True)}
        unanswerable = {"XQuAD-en q → laws": rows(eng, "laws", xq_en, False),
                        "CMRC q → PEPs": rows(eng, "peps", cmrc, False),
                        "XQuAD-zh q → rfc": rows(eng, "rfc", xq_zh, False),
                        "XQuAD-zh q → PEPs": rows(eng, "peps", xq_zh, False),
                        "XQuAD-en q → cmrc": rows(eng, "cmrc", xq_en, False),
                        "XQuAD-en q → PEPs": rows(eng, "peps", xq_en, False),
                        "CMRC q → laws": rows(eng, "laws", cmrc, False),
                        "XQuAD-zh q → laws": rows(eng, "laws", xq_zh, False),
                        "XQuAD-en q → rfc": rows(eng, "rfc", xq_en, False)}
    import json

    Path(args.dump).write_text(json.dumps({"answerable": answerable, "unanswerable": unanswerable}))
    ans = [r for v in answerable.values() for r in v]
    una = [r for v in unanswerable.values() for r in v]
    for label, data in (*answerable.items(), *unanswerable.items()):
        d1 = np.array([r["d"][0] for r in data])
        z = np.array([r["z"] for r in data])
        print(f"{label:<22} d1 p10/50/90 {np.percentile(d1, 10):.3f}/{np.median(d1):.3f}/{np.percentile(d1, 90):.3f}"
              f"   z p10/50/90 {np.percentile(z, 10):.1f}/{np.median(z):.1f}/{np.percentile(z, 90):.1f}")
    print(f"\n{'rule':<46}{'answerable recall':>18}{'unanswerable → 0':>18}")
    base_rec, _ = score(lambda r, i: True, ans, una)
    print(f"{'no cut':<46}{base_rec:>18.3f}{0.0:>18.3f}")
    for p in ("p05", "p10", "p20", "p30", "p50"):
        rec, zero = score(lambda r, i, p=p: r["d"][i] <= r["ref"][p], ans, una)
        print(f"{'d ≤ ref ' + p:<46}{rec:>18.3f}{zero:>18.3f}")
    for zt in (4, 5, 6, 7):
        rec, zero = score(lambda r, i, zt=zt: r["z"] >= zt and r["d"][i] <= r["d"][0] + 0.03, ans, una)
        print(f"{f'z ≥ {zt} (and within 0.03 of d1)':<46}{rec:>18.3f}{zero:>18.3f}")
    print("\nper set, distance cut vs distance + lexical evidence (known > K, hit needs ≥ T of the weight,"
          " ≥ R kept up to p50):")

    def lexical_rule(r, i, known=0.15, t=0.10, rescue=0.30):  # type: ignore[no-untyped-def]
        applies = r["known"] > known
        if applies and r["lex"][i] >= rescue and r["d"][i] <= r["ref"]["p50"]:
            return True
        return r["d"][0] <= r["ref"]["p10"] and r["d"][i] <= r["ref"]["p30"] and (not applies or r["lex"][i] >= t)

    distance_rule = lambda r, i: r["d"][0] <= r["ref"]["p10"] and r["d"][i] <= r["ref"]["p30"]  # noqa: E731

    def local_rule(r, i, m=1.5, lexical=True):  # type: ignore[no-untyped-def]
        """Per passage: beat its 3 nearest unrelated questions by m × (median − p10); words checked."""
        applies = lexical and r["known"] > 0.15
        if applies and r["lex"][i] >= 0.30 and r["d"][i] <= r["ref"]["p50"]:
            return True
        cut = r["local"][i] - m * (r["ref"]["p50"] - r["ref"]["p10"])
        return r["d"][i] <= cut and (not applies or r["lex"][i] >= 0.15)

    print(f"{'set':<22}{'no cut':>9}{'distance':>10}{'+lexical':>10}{'local':>8}{'+lexical':>10}"
          "   (recall, or zero-chunk share)")
    for label, data in answerable.items():
        base = score(lambda r, i: True, data, [])[0]
        print(f"{label:<22}{base:>9.3f}{score(distance_rule, data, [])[0]:>10.3f}"
              f"{score(lexical_rule, data, [])[0]:>10.3f}"
              f"{score(lambda r, i: local_rule(r, i, lexical=False), data, [])[0]:>8.3f}"
              f"{score(local_rule, data, [])[0]:>10.3f}")
    for label, data in unanswerable.items():
        print(f"{label:<22}{'':>9}{score(distance_rule, [], data)[1]:>10.3f}{score(lexical_rule, [], data)[1]:>10.3f}"
              f"{score(lambda r, i: local_rule(r, i, lexical=False), [], data)[1]:>8.3f}"
              f"{score(local_rule, [], data)[1]:>10.3f}")
    print("\nlocal cut margin (× reference median − p10), with the lexical check:")
    for m in (0.75, 1.0, 1.25, 1.5, 2.0):
        rule = lambda r, i, m=m: local_rule(r, i, m)  # noqa: E731
        drops = [score(rule, d, [])[0] - score(lambda r, i: True, d, [])[0] for d in answerable.values()]
        zeros = [score(rule, [], d)[1] for d in unanswerable.values()]
        print(f"  m={m:<5} recall drop mean {np.mean(drops):+.3f} worst {min(drops):+.3f}; "
              f"zero-chunk worst {min(zeros):.3f} mean {np.mean(zeros):.3f}")
    print("\ngrid over the lexical rule (mean recall drop vs no cut; worst and mean zero-chunk share):")
    for known in (0.0, 0.15, 0.3):
        for t in (0.05, 0.10, 0.15, 0.2):
            for rescue in (0.3, 0.4):
                rule = lambda r, i, k=known, t=t, rs=rescue: lexical_rule(r, i, k, t, rs)  # noqa: E731
                drops = [score(rule, d, [])[0] - score(lambda r, i: True, d, [])[0] for d in answerable.values()]
                zeros = [score(rule, [], d)[1] for d in unanswerable.values()]
                print(f"  known>{known:<4} T={t:<4} R={rescue}: recall drop mean {np.mean(drops):+.3f} "
                      f"worst {min(drops):+.3f}; zero worst {min(zeros):.3f} mean {np.mean(zeros):.3f}")
    for p in ("p10", "p20", "p30"):
        for zt in (5, 6, 7):
            rec, zero = score(lambda r, i, p=p, zt=zt: r["d"][i] <= r["ref"][p] or
                              (r["z"] >= zt and r["d"][i] <= r["d"][0] + 0.03), ans, una)
            print(f"{f'd ≤ ref {p} or z ≥ {zt}':<46}{rec:>18.3f}{zero:>18.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
