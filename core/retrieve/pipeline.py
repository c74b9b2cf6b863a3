"""The retrieval pipeline, top to bottom like SPEC R2–R8.

Stages work on candidates (row indices and distances) — never on chunk text — so
only the chunks that end up in the context are read back and decrypted (R7).
Identifier keys, term sets and aspect flags stored at ingest answer the string
checks. Every stage records what it kept and dropped into the ``Trace``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from biny.core.crypto.blind import BlindIndex
from biny.core.embed.base import Vectors
from biny.core.retrieve.baseline import Baselines, load_questions
from biny.core.retrieve.identifiers import question_keys
from biny.core.retrieve.lexical import evidence, familiarity
from biny.core.retrieve.rerank import Reranker, RRFReranker
from biny.core.retrieve.terms import ASPECT_WORDS, SCRIPTS, asked_aspects, contains_term, named_terms
from biny.core.retrieve.trace import Dropped, Stage, Trace
from biny.core.store.vectors import VectorMatrix


@dataclass(slots=True)
class Candidate:
    row: int
    chunk_id: str
    doc_id: str
    distance: float
    pinned: bool = False
    source: str = "vector"  # vector | identifier | second_pass


@dataclass(slots=True)
class RetrievalParams:
    k: int
    pool_factor: int
    threshold_quantile: float
    keep_quantile: float = 0.30
    # Lexical evidence (retrieve/lexical.py): see RetrievalSettings for the measured values.
    lexical_known: float = 0.15
    lexical_min: float = 0.15
    lexical_familiar: float = 0.05
    lexical_own_script: bool = True  # words asked only of passages in the question's script
    pool_per_script: bool = True  # in a space of several scripts, also the nearest rows of each
    lexical_rescue: float = 0.30
    rescue_quantile: float = 0.50
    # Per-passage cut (Baselines.local_reference) with this many reference spreads of margin;
    # False = one cut for the space (p10 gate, p30 keep), kept for comparison.
    local_cut: bool = True
    local_margin: float = 1.5
    # An explicit cut (console control, experiments); None = from the measured reference.
    max_distance: float | None = None
    max_chars: int = 12000
    max_tokens: int = 4000
    # Stage switches (the evaluation harness ablates each).
    use_threshold: bool = True
    use_lexical: bool = True
    use_identifiers: bool = True
    use_second_pass: bool = True
    use_rerank: bool = True
    keep_nearest: bool = True


@dataclass(slots=True)
class Context:
    """What stages need beyond the vectors: titles (glossary, scoping) and a query embedder."""

    titles: dict[str, str]
    glossary: list[str]
    embed_queries: Callable[[list[str]], Vectors]
    reranker: Reranker = field(default_factory=RRFReranker)
    # Encrypted spaces store HMACs of keys/terms/aspects; the question's are blinded alike.
    blind: BlindIndex = field(default_factory=lambda: BlindIndex(None))


@dataclass(slots=True)
class Retrieval:
    final: list[Candidate]
    remaining: list[Candidate]  # the rest of the ranked pool, for "more material" (R6)
    max_distance: float | None
    reference: str
    trace: Trace


class _Distances:
    """Exact distances from the question to rows, computed only for rows asked about.

    On a large space the pool comes from an ANN graph, so no full distance array
    exists; pins and second-pass hits outside the pool are measured here on demand.
    """

    def __init__(self, vm: VectorMatrix, query: Vectors) -> None:
        self._vm = vm
        self._q = query
        self._known: dict[int, float] = {}

    def note(self, rows: npt.NDArray[np.int64], dists: npt.NDArray[np.float32]) -> None:
        self._known.update(zip(map(int, rows), map(float, dists), strict=True))

    def many(self, rows: list[int]) -> list[float]:
        missing = [r for r in rows if r not in self._known]
        if missing:  # one gather and product, not one per row (an identifier may hit thousands)
            self.note(np.asarray(missing, dtype=np.int64), self._vm.distances_at(self._q, missing))
        return [self._known[r] for r in rows]

    def __getitem__(self, row: int) -> float:
        d = self._known.get(row)
        if d is None:
            d = float(self._vm.distances_at(self._q, [row])[0])
            self._known[row] = d
        return d


def _cand(vm: VectorMatrix, row: int, dist: _Distances, *, pinned: bool = False,
          source: str = "vector") -> Candidate:
    return Candidate(row, vm.chunk_ids[row], vm.doc_ids[row], dist[row], pinned, source)


def _script_masks(vm: VectorMatrix, baselines: Baselines, blind: BlindIndex,
                  min_share: float = 0.05) -> dict[frozenset[str], npt.NDArray[np.bool_]]:
    """Row masks, one per combination of scripts (Chinese; English; Chinese with English;
    Japanese = kana with han …) holding at least ``min_share`` of the rows. From the script
    marks stored at ingest; rows stored before them have none. Kept per matrix.

    Combinations, not single scripts: a Chinese passage quoting English names would
    otherwise count as English and win the English ranking for a Chinese question.
    """
    if baselines.script_rows is None:
        marks = {blind.aspect(f"script:{g}"): g for g, _ in SCRIPTS}
        keys = np.array([",".join(sorted(marks[a] for a in row if a in marks)) for row in vm.aspects] or [""])
        masks = {}
        for key in sorted(set(keys.tolist()) - {""}):
            mask = keys == key
            if mask.sum() >= min_share * len(vm):
                masks[frozenset(key.split(","))] = mask
        baselines.script_rows = masks
    return baselines.script_rows


def find_cliff(distances: list[float], slots: int) -> int:
    """How many of the nearest hits stand before a cliff in the distances (0 = smooth slope).

    R4: when an identifier hits more chunks than fit, keep those before a clear step
    (the page's 0.27, 0.31, then noise from 0.51); a smooth slope means the hits are
    a sample, and none is rescued. A step is a gap within the first ``slots`` hits at
    least 4× the median gap and at least 15% of the whole spread.
    """
    d = sorted(distances)
    if len(d) <= slots:
        return len(d)
    gaps = [b - a for a, b in itertools.pairwise(d)]
    spread = d[-1] - d[0]
    if spread <= 0:
        return 0
    median_gap = float(np.median(gaps))
    i = max(range(min(slots, len(gaps))), key=lambda j: gaps[j])
    if gaps[i] >= 4 * max(median_gap, 1e-6) and gaps[i] >= 0.15 * spread:
        return i + 1
    return 0


def retrieve(
    question: str,
    query_vector: Vectors,
    vm: VectorMatrix,
    baselines: Baselines,
    params: RetrievalParams,
    trace: Trace,
    ctx: Context,
) -> Retrieval:
    k = params.k
    # ---- R2: a ranked pool wider than K, fetched first (exact search over every chunk) ----------
    t0 = time.perf_counter()
    group, ref = baselines.reference_for(question)
    exact = vm.ann is None or vm.ann.rows != len(vm)
    classes = _script_masks(vm, baselines, ctx.blind) if params.pool_per_script and exact else {}
    # Passages written without the question's script get a ranking of their own: a
    # multilingual model puts a question nearer to any passage in its own language than to
    # the answer in another (R2; bench/eval_retrieval.py "mixed en+zh": a Chinese question's
    # English answer was outranked by every Chinese passage). Among passages sharing its
    # script the plain ranking is fair, so a one-language space is searched as before.
    # Exact scan only: above the ANN crossover a mixed space gets the plain ranking (open).
    scripts = [m for key, m in classes.items() if group != "all" and group not in key] if len(classes) > 1 else []
    n_per_script = 0
    if scripts:
        idx, pool_d, n_per_script = vm.search_by_script(query_vector, k * params.pool_factor, scripts)
    else:
        idx, pool_d = vm.search(query_vector, k * params.pool_factor)
    dist = _Distances(vm, query_vector)
    dist.note(idx, pool_d)
    pool = [_cand(vm, int(i), dist) for i in idx]
    standout = None
    if len(vm) >= 20 and pool:
        # How far the top hit stands out from this question's own distance distribution
        # (recorded for analysts; measured and not used as a gate — see bench/threshold_rules.py).
        sample = vm.sample_distances(query_vector)
        med = float(np.median(sample))
        mad = float(np.median(np.abs(sample - med))) or 1e-6
        standout = (med - pool[0].distance) / mad
    how_searched = "exact" if exact else "ANN candidates, exact distances"
    more = f" + {n_per_script} nearest of each script" if n_per_script else ""
    trace.add(Stage(
        "pool", f"{len(pool) - n_per_script} nearest{more} of {len(vm)} chunks (K={k} × {params.pool_factor}, "
                f"{how_searched})",
        kept=[c.chunk_id for c in pool],
        data={"distances": [round(c.distance, 4) for c in pool], "searched": len(vm), "per_script_added": n_per_script,
              "standout": None if standout is None else round(standout, 2)},
        ms=(time.perf_counter() - t0) * 1000,
    ))

    # ---- R2/R9: cut at a distance set against the measured reference, checked by words -----------
    t0 = time.perf_counter()
    lex = evidence(trace.retrieval_query or question, vm, ctx.blind)
    familiar = baselines.familiar.get(group)
    if familiar is None:
        texts = [q for g, q in load_questions() if g == group or group == "all"]
        familiar = baselines.familiar[group] = familiarity(texts, vm, ctx.blind)
    # Words are evidence when the space knows the question's words, or is written in its
    # script at all — then knowing none of them means the material does not cover it.
    lexical = params.use_lexical and params.use_threshold and params.max_distance is None and ref is not None \
        and (lex.applies(params.lexical_known) or familiar >= params.lexical_familiar)
    cover = {c.row: lex.coverage(vm.terms[c.row]) for c in pool} if lexical else {}
    rescue_d: float | None = None
    cuts: dict[int, float] = {}  # row → the distance this passage had to beat
    if not params.use_threshold:
        how = "threshold switched off"
    elif params.max_distance is not None:
        cuts = {c.row: params.max_distance for c in pool}
        how = f"explicit cut {params.max_distance:.3f}"
    elif ref is not None and params.local_cut and baselines.questions:
        # Each passage against the unrelated questions closest to *it*: a margin of the
        # reference's own spread (median − p10) below their mean distance (retrieve/baseline.py).
        margin = params.local_margin * (ref.median - ref.quantile(params.threshold_quantile))
        local = baselines.local_reference(group, vm.matrix, [c.row for c in pool])
        cuts = {c.row: float(h) - margin for c, h in zip(pool, local, strict=True)}
        how = (f"each passage must be closer than its 3 nearest unrelated {group} questions are, by "
               f"{margin:.3f} ({params.local_margin:g} × the reference's median − p10)")
    elif ref is not None:
        gate = ref.quantile(params.threshold_quantile)
        keep = max(gate, ref.quantile(params.keep_quantile))
        # Nothing comes as close as the closest tenth of unrelated questions do: nothing answers.
        flat = gate if pool and pool[0].distance > gate else keep
        cuts = {c.row: flat for c in pool}
        how = (f"top hit must be within {gate:.3f} (p{params.threshold_quantile * 100:.0f}), further hits "
               f"within {keep:.3f} (p{params.keep_quantile * 100:.0f}) "
               f"of unrelated questions' nearest distance ({group}, median {ref.median:.3f})")
    else:
        how = "no reference measured yet: nothing cut"
    if lexical and ref is not None:
        rescue_d = ref.quantile(params.rescue_quantile)
        how += (f"; the space knows {lex.known_share:.0%} of the question's words ({familiar:.0%} of everyday "
                f"{group} questions' words), so a hit must share "
                f"≥{params.lexical_min:.0%} of their weight, and one sharing ≥{params.lexical_rescue:.0%} "
                f"is kept up to {rescue_d:.3f} (p{params.rescue_quantile * 100:.0f})")
    max_d: float | None = cuts[pool[0].row] if pool and cuts else None
    # Word overlap is asked only of passages written in the script of the question's words:
    # in a space of Chinese and English documents, a Chinese question's answer in English
    # shares no Chinese words, and distance alone judges it (as in an all-English space).
    # ("RFC 9110 的标题是什么？" is judged on rfc/9110: English passages are asked.)
    # Passages stored before scripts were recorded carry no script mark and are all asked.
    own_mark = ctx.blind.aspect(f"script:{lex.script}")
    marks = {ctx.blind.aspect(f"script:{g}") for g, _ in SCRIPTS}
    other_script = {c.row for c in pool if params.lexical_own_script and lex.script != "all"
                    and own_mark not in vm.aspects[c.row] and marks & vm.aspects[c.row]}

    def verdict(c: Candidate) -> str | None:
        """None when kept, else why the hit was dropped."""
        if lexical and rescue_d is not None and cover[c.row] >= params.lexical_rescue and c.distance <= rescue_d:
            return None
        if c.row in cuts and c.distance > cuts[c.row]:
            return f"beyond the distance cut ({cuts[c.row]:.3f} for this passage)"
        if lexical and cover[c.row] < params.lexical_min and c.row not in other_script:
            return f"shares {cover[c.row]:.0%} of the question's words (needs {params.lexical_min:.0%})"
        return None

    reasons = {c.row: verdict(c) for c in pool}
    kept = [c for c in pool if reasons[c.row] is None]
    trace.add(Stage(
        "threshold", f"{len(kept)} of {len(pool)} kept; {how}",
        kept=[c.chunk_id for c in kept],
        dropped=[Dropped(c.chunk_id, reasons[c.row] or "", c.distance) for c in pool if reasons[c.row]],
        data={"max_distance": max_d, "reference": group, "quantile": params.threshold_quantile,
              "cuts": {vm.chunk_ids[r]: round(v, 4) for r, v in cuts.items()},
              "lexical": {"applies": lexical, "known_share": round(lex.known_share, 3),
                          "script_familiarity": round(familiar, 3),
                          "other_script": [vm.chunk_ids[r] for r in sorted(other_script)],
                          "coverage": {vm.chunk_ids[r]: round(v, 3) for r, v in cover.items()},
                          "rescue_distance": rescue_d}},
        ms=(time.perf_counter() - t0) * 1000,
    ))

    # ---- R4: identifiers are looked up as keys and pinned ahead of semantic ranking ---------------
    t0 = time.perf_counter()
    pins: list[Candidate] = []
    id_data: list[dict[str, object]] = []
    if params.use_identifiers:
        named_docs = _named_docs(question, ctx)
        for ident in question_keys(question):
            entries = vm.id_index.get(ctx.blind(ident.key), [])
            defining = [r for r, tier in entries if tier == "def"]
            rows = defining or [r for r, _ in entries]
            scoped = [r for r in rows if vm.doc_ids[r] in named_docs] if named_docs else rows
            rows = scoped or rows
            rows = sorted(set(rows))
            rows = [r for _, r in sorted(zip(dist.many(rows), rows, strict=True))]
            slots = max(1, k - len(pins))
            n_keep = find_cliff(dist.many(rows), slots)
            one_document = bool(defining) and len({vm.doc_ids[r] for r in rows}) == 1
            if n_keep == 0 and one_document:
                # Every defining hit is in one document: the identifier names that document
                # (e.g. "PEP 484" in its title), so its nearest chunk is pinned — the
                # smooth-slope rule is for mentions scattered across documents.
                n_keep = 1
            taken = [r for r in rows[:n_keep] if all(p.row != r for p in pins)]
            pins.extend(_cand(vm, r, dist, pinned=True, source="identifier") for r in taken)
            id_data.append({"identifier": ident.surface, "key": ident.key, "hits": len(rows),
                            "tier": "def" if defining else "ref", "scoped_to_named_documents": bool(named_docs),
                            "pinned": len(taken),
                            "rule": "all fit" if len(rows) <= slots else "cliff" if n_keep and not one_document
                                    else "one document named: its nearest chunk" if n_keep
                                    else "smooth slope: none rescued"})
    trace.add(Stage(
        "identifiers",
        f"{len(pins)} pinned from {len(id_data)} identifier(s)" if id_data else "no identifier in the question",
        kept=[p.chunk_id for p in pins], data={"identifiers": id_data},
        ms=(time.perf_counter() - t0) * 1000,
    ))

    # ---- R3: second pass, decided by code (named things, asked aspect) ---------------------------
    t0 = time.perf_counter()
    pinned_rows = {p.row for p in pins}
    candidates = [c for c in kept if c.row not in pinned_rows]
    retrieved_rows = [p.row for p in pins] + [c.row for c in candidates[:k]]
    added: list[Candidate] = []
    data: dict[str, object] = {}
    derived: list[str] = []
    # R3 asks what a *successful* retrieval is missing: with nothing retrieved the
    # honest answer is "not in your material", and nothing is searched again.
    ceiling = ref.median if ref is not None and params.use_threshold else None
    if params.use_second_pass and retrieved_rows:
        id_surfaces = {i.surface.lower() for i in question_keys(question)}
        terms = [t for t in named_terms(question, ctx.glossary) if t.lower() not in id_surfaces]
        missing_terms = [t for t in terms
                         if not any(contains_term(vm.terms[r], t, ctx.blind) for r in retrieved_rows)]
        asked = asked_aspects(question)
        missing_aspects = sorted(a for a in asked
                                 if not any(ctx.blind.aspect(a) in vm.aspects[r] for r in retrieved_rows))
        data = {"terms": terms, "missing_terms": missing_terms, "aspects": sorted(asked),
                "missing_aspects": missing_aspects}
        queries: list[tuple[str, str | None, str | None]] = []  # (query, required term, required aspect)
        aspect_words = " ".join(ASPECT_WORDS.get(a, a.split(":")[-1]) for a in missing_aspects)
        for t in missing_terms:
            queries.append((f"{t} {aspect_words}".strip(), t, None))
        for a in missing_aspects:
            subject = " ".join(terms) or question
            queries.append((f"{subject} {ASPECT_WORDS.get(a, a.split(':')[-1])}", terms[0] if terms else None, a))
        if queries:
            vectors = ctx.embed_queries([q for q, _, _ in queries])  # one batch: once, never a loop
            seen = pinned_rows | {c.row for c in candidates}
            for (_q, term, aspect), qv in zip(queries, vectors, strict=True):
                q_idx, _ = vm.search(qv, 3 * k)
                got = 0
                for r in (int(i) for i in q_idx):
                    if r in seen:
                        continue
                    if term is not None and not contains_term(vm.terms[r], term, ctx.blind):
                        continue
                    if aspect is not None and ctx.blind.aspect(aspect) not in vm.aspects[r]:
                        continue
                    if ceiling is not None and dist[r] > ceiling:
                        continue  # as far from the question as unrelated text: not a rescue
                    added.append(_cand(vm, r, dist, source="second_pass"))
                    seen.add(r)
                    got += 1
                    if got >= 2:
                        break
            derived = [q for q, _, _ in queries]
            data["queries"] = derived
    trace.add(Stage(
        "second_pass",
        (f"searched {len(derived)} derived quer(ies) once, merged {len(added)}"
         if derived else "switched off" if not params.use_second_pass
         else "nothing retrieved: no second pass" if not retrieved_rows
         else "every named term and asked aspect already present"),
        kept=[c.chunk_id for c in added], data=data, ms=(time.perf_counter() - t0) * 1000,
    ))

    # ---- Rerank (pins keep their places: R4) ------------------------------------------------------
    t0 = time.perf_counter()
    rest = candidates + added
    if params.use_rerank and len(rest) > 1:
        order = ctx.reranker.order(question, [c.row for c in rest], [c.distance for c in rest], vm, ctx.blind)
        by_row = {c.row: c for c in rest}
        rest = [by_row[r] for r in order]
    ranked = pins + rest
    final = pins + rest[: max(0, k - len(pins))]
    trace.add(Stage(
        "rerank", f"{ctx.reranker.name if params.use_rerank else 'vector order'}; "
                  f"{len(pins)} pinned first, {len(final) - len(pins)} ranked",
        kept=[c.chunk_id for c in final],
        dropped=[Dropped(c.chunk_id, "past K after rerank", c.distance) for c in rest[max(0, k - len(pins)):]],
        ms=(time.perf_counter() - t0) * 1000,
    ))

    # ---- R5: the vector-nearest chunk (within the cut) is always in the context, added ------------
    nearest = kept[0] if kept else None
    added_nearest = False
    if params.keep_nearest and nearest is not None and all(c.row != nearest.row for c in final):
        final.append(nearest)
        added_nearest = True
    trace.add(Stage(
        "nearest",
        ("nearest chunk added back (rerank had moved it out)" if added_nearest else
         "nearest chunk already in the context" if nearest else "no chunk within the cut"),
        kept=[nearest.chunk_id] if nearest else [],
    ))

    # ---- R8: character and token budget; whole chunks only, in final order ------------------------
    chars = tokens = 0
    budgeted: list[Candidate] = []
    over: list[Dropped] = []
    for c in final:
        c_chars, c_tokens = int(vm.chars[c.row]), int(vm.tokens[c.row])
        if chars + c_chars <= params.max_chars and tokens + c_tokens <= params.max_tokens:
            budgeted.append(c)
            chars += c_chars
            tokens += c_tokens
        else:
            over.append(Dropped(c.chunk_id, "over the context budget (kept whole, not cut)", c.distance))
    trace.add(Stage(
        "budget", f"{len(budgeted)} chunk(s), {chars} chars, {tokens} tokens "
                  f"(caps {params.max_chars} chars / {params.max_tokens} tokens)",
        kept=[c.chunk_id for c in budgeted], dropped=over,
    ))
    final_rows = {c.row for c in budgeted}
    remaining = [c for c in ranked if c.row not in final_rows]
    trace.add(Stage(
        "final", f"{len(budgeted)} chunk(s) in the context" + ("" if budgeted else ": no passage close enough"),
        kept=[c.chunk_id for c in budgeted],
    ))
    return Retrieval(budgeted, remaining, max_d, group, trace)


def _named_docs(question: str, ctx: Context) -> set[str]:
    """Documents whose title the question names (glossary terms of that title present in it)."""
    q = question.lower()
    named = [g for g in ctx.glossary if len(g) >= 2 and g.lower() in q]
    if not named:
        return set()
    longest = max(len(g) for g in named)
    # Prefer the most specific title term named ("劳动合同法" over "合同法").
    specific = [g for g in named if len(g) == longest]
    return {d for d, title in ctx.titles.items() if any(g.lower() in title.lower() for g in specific)}
