"""The retrieval pipeline, top to bottom like SPEC R1–R8.

Each stage is a module with typed inputs and outputs; ``retrieve`` is their order.
Stages work on candidates (row indices and distances) — never on chunk text — so
only the chunks that end up in the context are read back and decrypted (R7).
Identifier keys, term sets and aspect flags stored at ingest answer the string
checks. Every stage records what it kept and dropped into the ``Trace``.
"""

from __future__ import annotations

from biny.core.i18n import msg
from biny.core.retrieve import judge, mentions, pin, pool, sentences, threshold
from biny.core.retrieve.baseline import Baselines
from biny.core.retrieve.budget import fit_whole
from biny.core.retrieve.candidates import Candidate, Context, Retrieval, RetrievalParams
from biny.core.retrieve.nearest import keep_nearest
from biny.core.retrieve.pin import find_cliff
from biny.core.retrieve.rerank import rerank
from biny.core.retrieve.rewrite import rewrite_stage
from biny.core.retrieve.second_pass import second_pass
from biny.core.store.vectors import VectorMatrix
from biny.core.text.question import Question
from biny.core.trace import Dropped, Stage, StageName, Trace

__all__ = ["Candidate", "Context", "Retrieval", "RetrievalParams", "budget_stage", "find_cliff", "retrieve"]


def retrieve(question: Question, history: list[str], vm: VectorMatrix, baselines: Baselines, params: RetrievalParams,
             ctx: Context) -> Retrieval:
    """``question`` as asked, parsed once (text/question.py); a follow-up's rewrite is parsed once more, and each
    stage reads the one it judges by: the threshold and the judge the rewritten query, the reference, the pins, the
    second pass and the rerank the question as asked."""
    k = params.k
    trace = Trace(question=question.text, retrieval_query=question.text)
    # R1: a follow-up may be rewritten; the rewrite changes the query vector only.
    rewritten = rewrite_stage(question.text, history, ctx.model, ctx.followup_fallback, trace)
    query = question if rewritten == question.text else Question.parse(rewritten)
    query_vector = ctx.embed_queries([query.text])[0]
    group, ref = baselines.reference_for(question)
    # R2: a ranked pool wider than K, then the cut against the measured reference (R9).
    candidates, dist = pool.gather(query_vector, vm, baselines, params, group, ctx.blind, trace)
    kept, max_d = threshold.cut(query, candidates, vm, baselines, params, group, ref, ctx, trace, query_vector)
    # R3 (a) over the whole space: a name no passage mentions cannot be answered by any of them (issue 55).
    missing = mentions.unmentioned(query, vm, ctx.blind) if params.use_threshold and params.use_mentions else []
    if missing:
        return _unmentioned(query, missing, kept, candidates, max_d, group, dist.seen, trace)
    # Issue 55: where the fitted judge decided, it already read what the sentence rules read for; else they run.
    decided = params.relevance_decides and any(c.verdict is not None for c in candidates)
    if not decided:
        kept = sentences.check(kept, query_vector, params, ref, ctx, trace)
        kept = sentences.rescue_gated(kept, candidates, query_vector, params, ref, ctx, trace)
    # Issue 20: where a model is configured, it judges the passages the cut is unsure of.
    kept = judge.check(query.text, candidates, kept, params, ref, ctx, trace)
    # R4: identifiers pinned ahead of ranking.
    pins = pin.pin_identifiers(question, vm, dist, k, ctx, trace, enabled=params.use_identifiers)
    pinned = {p.row for p in pins}
    unpinned = [c for c in kept if c.row not in pinned]
    # R3: one second pass for missing named terms or asked aspects.
    ceiling = ref.median if ref is not None and params.use_threshold else None
    dropped = frozenset(c.row for c in candidates if decided and c.verdict is not None and not c.verdict.kept)
    added = second_pass(question, pins, unpinned, k, vm, dist, ctx, ceiling, trace,
                        enabled=params.use_second_pass, judged=dropped)
    # Rerank may reorder but never moves pins (R4); the nearest stays (R5).
    final, ranked = rerank(question, pins, unpinned + added, k, vm, ctx, trace, enabled=params.use_rerank)
    final = keep_nearest(final, kept, trace, enabled=params.keep_nearest)
    # R8: whole chunks within the budget, in final order.
    budgeted = budget_stage(final, vm, params.max_context_chars, params.max_context_tokens, trace)
    in_context = {c.row for c in budgeted}
    trace.add(Stage(
        "final", msg("{n} chunk(s) in the context").format(n=len(budgeted))
        + ("" if budgeted else msg(": no passage close enough")),
        kept=[c.chunk_id for c in budgeted],
    ))
    trace.documents = dict(dist.seen)  # doc ids here; the engine names them (services/retrieval.py)
    return Retrieval(budgeted, [c for c in ranked if c.row not in in_context], max_d, group, trace, candidates,
                     kept[0].chunk_id if kept else "")


def _unmentioned(query: Question, missing: list[str], kept: list[Candidate], candidates: list[Candidate],
                 max_d: float | None, group: str, seen: dict[str, str], trace: Trace) -> Retrieval:
    """The question names what the material never mentions: no passage is kept, and the refusal names it."""
    names = [query.written(w) for w in missing]
    said = ", ".join(f"“{n}”" for n in names)
    trace.add(Stage(
        "unmentioned", msg("no passage of the space mentions {names}: nothing here can answer").format(names=said),
        dropped=[Dropped(c.chunk_id, msg("the material never mentions {names}").format(names=said), c.distance)
                 for c in kept],
    ))
    trace.add(Stage("final", msg("{n} chunk(s) in the context").format(n=0) + msg(": no passage close enough"),
                    kept=[]))
    trace.documents = dict(seen)
    return Retrieval([], [], max_d, group, trace, candidates, "", unmentioned=names)


def budget_stage(final: list[Candidate], vm: VectorMatrix, max_chars: int, max_tokens: int,
                 trace: Trace, name: StageName = "budget") -> list[Candidate]:
    """R8: character and token budget; whole chunks only, in the order given."""
    fit = fit_whole(final, lambda c: (int(vm.chars[c.row]), int(vm.tokens[c.row])), max_chars, max_tokens)
    trace.add(Stage(
        name, msg("{n} chunk(s), {chars} chars, {tokens} tokens (caps {max_chars} chars / {max_tokens} tokens)").format(
            n=len(fit.kept), chars=fit.chars, tokens=fit.tokens, max_chars=max_chars, max_tokens=max_tokens),
        kept=[c.chunk_id for c in fit.kept],
        dropped=[Dropped(c.chunk_id, msg("over the context budget (kept whole, not cut)"), c.distance)
                 for c in fit.over],
    ))
    return fit.kept
