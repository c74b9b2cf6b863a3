"""What analysts look at (SPEC C3, R9): the star map, the collection, distance plots, evaluation runs."""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from biny.core.analysis import evaluate as ev
from biny.core.analysis.layout import knn_recall_2d, pca2
from biny.core.analysis.model_baseline import bands
from biny.core.analysis.starmap import Ring, StarMap, build
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.progress import Progress, ProgressCallback, no_progress
from biny.core.results import Hit
from biny.core.retrieve.baseline import Distribution
from biny.core.services.documents import Documents
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.services.retrieval import Retriever
from biny.core.text.question import Question
from biny.core.text.scripts import script_of

__all__ = ["Analysis", "Collection", "EvalRun"]

COLLECTION_LIMIT = 10_000
PRESERVATION_SAMPLE = 800
TOP_GROUPS = 9


@dataclass(slots=True)
class Collection:
    coords: Any  # (n, 2)
    groups: list[str]
    chunk_ids: list[str]
    documents: list[str]
    question: Any | None  # (2,) where the question lands, if one was given
    total: int  # chunks in the space; more than shown means a sample
    preservation: float
    note: str = ""


@dataclass(slots=True)
class EvalRun:
    run_id: str
    space: str
    name: str
    metrics: dict[str, dict[str, Any]]  # variant → metrics
    results: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    comparison: dict[str, list[str]] | None = None
    reference: Distribution | None = None  # the space's unrelated reference, for the distance plot

    def nearest_distances(self, answerable: bool) -> list[float]:
        """Each question's nearest-chunk distance (full pipeline's pool), answerable or not."""
        return [r["nearest"] for r in self.results if r.get("nearest") is not None and r["unanswerable"] != answerable]

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "space": self.space, "name": self.name, "metrics": self.metrics,
                "questions": len(self.results), "seconds": round(self.seconds, 2), "results": self.results,
                **({"compare": self.comparison} if self.comparison is not None else {})}


class Analysis:
    def __init__(self, folder: DataFolder, models: Models, keys: KeySession, retriever: Retriever,
                 documents: Documents) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        self.retriever = retriever
        self.documents = documents

    def _params(self) -> Any:
        params = self.retriever.params()
        params.use_structured = False  # analysts look at retrieval itself
        return params

    def model_bands(self) -> dict[str, Distribution]:
        """The model-level unrelated bands per language pair ("han→latin" …)."""
        return bands(self.models.embedder, self.folder.cache_dir)

    # ---- the star map ------------------------------------------------------------------------------
    def star_map(self, space: str, question: str) -> StarMap:
        row = self.folder.catalog.spaces.named(space)
        asked = Question.parse(question.strip())
        result = self.retriever.ask(space, asked, params=self._params())
        vm = self.retriever.matrix(row)
        at = {cid: i for i, cid in enumerate(vm.chunk_ids)}
        ids = list(dict.fromkeys([*result.pool, *(h.chunk_id for h in result.chunks)]))
        ids = [c for c in ids if c in at]
        final = {h.chunk_id: h for h in result.chunks}
        nearest = {result.nearest} if result.nearest else set()
        titles = {d.doc_id: d.title for d in self.documents.rows(space)}
        # Why each candidate left: the first stage that dropped it and the reason it gave.
        why: dict[str, str] = {}
        for stage in result.trace.stages:
            for d in stage.dropped:
                why.setdefault(d.chunk_id, f"{stage.name}: {d.reason}")
        meta = []
        for cid in ids:
            hit = final.get(cid)
            status = "dropped" if hit is None else "pinned" if hit.pinned else "nearest" if cid in nearest else "kept"
            doc_id = vm.doc_ids[at[cid]]
            meta.append({"chunk_id": cid, "doc_id": doc_id, "document": titles.get(doc_id, doc_id), "status": status,
                         "heading": " › ".join(hit.heading_path) if hit else "", "cut": hit.cut if hit else None,
                         "reason": _reason(status, hit, why.get(cid))})
        qvec = self.models.embed_queries([result.trace.retrieval_query])[0]
        group, reference = self.retriever.baselines(space).reference_for(asked)
        sm = build(question, qvec, vm.matrix[[at[c] for c in ids]], meta, reference, group)
        passage_script = script_of(result.chunks[0].text) if result.chunks else "latin"
        band = self.model_bands().get(f"{asked.script}→{passage_script}")
        if band is not None:
            sm.model_band = {"pair": f"{asked.script}→{passage_script}", "p10": band.quantiles["p10"],
                             "median": band.median, "p90": band.quantiles["p90"]}
            # The model's own unrelated scale, on the same axis as the space's reference.
            sm.rings.append(Ring(f"model unrelated median ({sm.model_band['pair']})", band.median, "model"))
        return sm

    # ---- distances -------------------------------------------------------------------------------
    def distances(self, space: str, question: str) -> tuple[Any, Distribution | None, float | None]:
        """Every chunk's distance to the question, the unrelated reference, and the tightest kept cut."""
        row = self.folder.catalog.spaces.named(space)
        asked = Question.parse(question.strip())
        result = self.retriever.ask(space, asked, params=self._params())
        vm = self.retriever.matrix(row)
        qvec = self.models.embed_queries([result.trace.retrieval_query])[0]
        _, reference = self.retriever.baselines(space).reference_for(asked)
        cuts = [h.cut for h in result.chunks if h.cut is not None]
        return 1.0 - vm.matrix @ qvec, reference, (min(cuts) if cuts else result.max_distance)

    # ---- the collection --------------------------------------------------------------------------
    def collection(self, space: str, *, question: str | None = None, color_by: str = "document",
                   limit: int = COLLECTION_LIMIT) -> Collection:
        row = self.folder.catalog.spaces.named(space)
        vm = self.retriever.matrix(row)
        n = len(vm)
        if n == 0:
            raise BinyError(t("Space {space!r} has no chunks yet.").format(space=space))
        rows = np.arange(n) if n <= limit else np.sort(np.random.default_rng(7).choice(n, limit, replace=False))
        vecs = vm.matrix[rows]
        coords, comps, mean = pca2(vecs)
        docs = {d.doc_id: d for d in self.documents.rows(space)}
        doc_ids = [vm.doc_ids[i] for i in rows]
        if color_by == "language":
            groups = ["CJK" if docs[d].cjk_share >= 0.3 else "Latin and other" if d in docs else "?" for d in doc_ids]
        else:
            titles = [docs[d].title if d in docs else d for d in doc_ids]
            top = {title for title, _ in Counter(titles).most_common(TOP_GROUPS)}
            groups = [title if title in top else t("other documents") for title in titles]
        q2 = None
        if question:
            q = self.models.embed_queries([question])[0]
            q2 = (np.asarray(q, dtype=np.float64) - mean) @ comps.T
        probe = rows[:PRESERVATION_SAMPLE] if len(rows) > PRESERVATION_SAMPLE else rows
        pres = knn_recall_2d(vm.matrix[probe], coords[: len(probe)])
        note = (t("{count:,} of {n:,} chunks (a fixed random sample)").format(count=len(rows), n=n) if n > limit
                else t("all {n:,} chunks").format(n=n))
        ref = self.retriever.baselines(space).question_nearest.get("all")
        if ref is not None:  # the scale a distance is read against
            note += (t("; unrelated questions sit at median distance {median:.3f} from their nearest chunk")
                     .format(median=ref.median))
        return Collection(coords, groups, [vm.chunk_ids[i] for i in rows],
                          [docs[d].title if d in docs else d for d in doc_ids], q2, n, pres, note)

    # ---- evaluation runs -------------------------------------------------------------------------
    def evaluate(self, space: str, path: Path, *, progress: ProgressCallback = no_progress,
                 compare_to: str | None = None) -> EvalRun:
        row = self.folder.catalog.spaces.named(space)
        crypto = self.keys.crypto(row)
        items = ev.load(Path(path))
        t0 = time.perf_counter()
        results: list[dict[str, Any]] = [{"question": i.question, "unanswerable": i.unanswerable, "variants": {}}
                                         for i in items]
        metrics: dict[str, dict[str, Any]] = {}
        total = len(items) * len(ev.VARIANTS)
        for v, (variant, flags) in enumerate(ev.VARIANTS.items()):
            params = self._params()
            for flag, value in flags.items():
                setattr(params, flag, value)
            outcomes = []
            for n, item in enumerate(items):
                r = self.retriever.ask(space, item.question, params=params)
                top = r.chunks[0] if r.chunks else None
                hit = ev.judge(item, [h.text for h in r.chunks], [h.document for h in r.chunks])
                o = ev.Outcome(len(r.chunks), hit,
                               None if top is None else round(top.distance, 4),
                               None if top is None or top.closer_than is None else round(top.closer_than, 4),
                               [h.chunk_id for h in r.chunks])
                outcomes.append(o)
                if variant == "full" and r.pool_nearest is not None:
                    results[n]["nearest"] = r.pool_nearest
                results[n]["variants"][variant] = {"chunks": o.chunks, "hit": o.hit, "top_distance": o.top_distance,
                                                   "top_closer_than": o.top_closer_than, "chunk_ids": o.chunk_ids}
                progress(Progress(v * len(items) + n + 1, total, "evaluate", variant))
            metrics[variant] = ev.metrics(items, outcomes)
        run_id = uuid.uuid4().hex[:10]
        payload = crypto.seal_note(f"eval:{run_id}", json.dumps({"results": results}, ensure_ascii=False))
        self.folder.writer.add_eval_run(run_id, row.space_id, Path(path).name, json.dumps(metrics), payload)
        run = EvalRun(run_id, space, Path(path).name, metrics, results, time.perf_counter() - t0,
                      reference=self.retriever.baselines(space).question_nearest.get("all"))
        if compare_to:
            run.comparison = self.compare(compare_to, run_id)
        return run

    def runs(self, space: str) -> list[dict[str, Any]]:
        row = self.folder.catalog.spaces.named(space)
        return [{"run_id": r, "created_at": at, "name": name, "metrics": json.loads(m)}
                for r, at, name, m in self.folder.catalog.evals.of(row.space_id)]

    def run(self, run_id: str) -> EvalRun:
        stored = self.folder.catalog.evals.get(run_id)
        if stored is None:
            raise BinyError(t("No evaluation run {run_id!r}; `biny eval FILE --space S` makes one.")
                             .format(run_id=run_id))
        space_id, name, metrics, payload = stored
        row = self.folder.catalog.spaces.by_id(space_id)
        data = json.loads(self.keys.crypto(row).open_note(f"eval:{run_id}", payload))
        return EvalRun(run_id, row.name, name, json.loads(metrics), data["results"],
                       reference=self.retriever.baselines(row.name).question_nearest.get("all"))

    def compare(self, first: str, second: str) -> dict[str, list[str]]:
        a, b = self.run(first), self.run(second)
        return ev.compare({"results": a.results}, {"results": b.results})


def _reason(status: str, hit: Hit | None, dropped: str | None) -> str:
    """Why a star-map point was kept or dropped, in words (the trace's own reason for a dropped one)."""
    if status == "dropped":
        return dropped or t("not among the passages returned (beyond the number asked for)")
    assert hit is not None
    if status == "pinned":
        return t("kept: it holds the identifier the question names")
    rule = t("kept: the nearest passage that passed the cut (always in the context)") if status == "nearest" \
        else t("kept")
    if hit.cut is not None:
        return rule + "; " + t("distance {distance:.3f}, its cut {cut:.3f}").format(distance=hit.distance,
                                                                                   cut=hit.cut)
    return rule
