"""The query-centred star map (SPEC C3): radius is the true distance, angle is only a layout.

Every pool candidate sits at radius = its exact cosine distance to the question, so the map
has no projection error on the one quantity that decides retrieval. The angle comes from a
2-D PCA of the candidates' vectors (deterministic), and the map reports how well those
angles keep neighbourhoods. Rings: the space's unrelated-question reference (p10, median,
p90 of the nearest-passage distances of the bundled unrelated questions in the question's
script) and each kept passage's own cut.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from biny.core.analysis.layout import knn_recall_angles, pca2

STATUSES = ("kept", "pinned", "nearest", "dropped")


@dataclass(slots=True)
class StarPoint:
    chunk_id: str
    doc_id: str
    document: str
    distance: float
    radius: float
    angle: float
    status: str  # kept | pinned | nearest | dropped
    closer_than: float | None = None  # share of unrelated questions farther from their nearest passage
    heading: str = ""
    cut: float | None = None
    reason: str = ""  # why it was kept or dropped, as the retrieval trace says (issue 49: every point's hover)


@dataclass(slots=True)
class Ring:
    name: str
    radius: float
    kind: str  # reference | cut | model


@dataclass(slots=True)
class StarMap:
    question: str
    points: list[StarPoint]
    rings: list[Ring]
    preservation: float  # kNN recall (k=5) of the angles
    reference: str  # which reference the rings come from ("latin", "han", "all")
    model_band: dict[str, Any] = field(default_factory=dict)  # the model-level band for this script pair

    def table(self) -> tuple[list[str], list[list[Any]]]:
        """The figures behind the map, one row a point and one a ring (issue 60: every plot has a CSV export)."""
        header = ["kind", "name", "document", "heading", "chunk_id", "status", "distance", "cut", "closer_than",
                  "angle", "reason"]
        rows: list[list[Any]] = [["point", "", p.document, p.heading, p.chunk_id, p.status, round(p.distance, 6),
                                  None if p.cut is None else round(p.cut, 6),
                                  None if p.closer_than is None else round(p.closer_than, 4), round(p.angle, 4),
                                  p.reason] for p in self.points]
        rows += [["ring", r.name, "", "", "", r.kind, round(r.radius, 6), None, None, None, ""] for r in self.rings]
        return header, rows

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "points": [asdict(p) for p in self.points],
                "rings": [asdict(r) for r in self.rings], "preservation": round(self.preservation, 4),
                "reference": self.reference, "model_band": self.model_band}


def build(question: str, query: npt.NDArray[np.floating], vectors: npt.NDArray[np.floating],
          meta: list[dict[str, Any]], reference: Any, reference_name: str) -> StarMap:
    """``meta`` per candidate: chunk_id, doc_id, document, status, heading, cut; ``reference`` a Distribution."""
    vecs = np.asarray(vectors, dtype=np.float64)
    q = np.asarray(query, dtype=np.float64)
    distances = 1.0 - vecs @ q if len(vecs) else np.zeros(0)
    coords, _, _ = pca2(vecs) if len(vecs) else (np.zeros((0, 2)), None, None)
    angles = np.arctan2(coords[:, 1], coords[:, 0]) % (2 * np.pi) if len(vecs) else np.zeros(0)
    points = []
    for m, d, a in zip(meta, distances, angles, strict=True):
        share = None if reference is None else reference.share_above(float(d))
        points.append(StarPoint(m["chunk_id"], m["doc_id"], m["document"], float(d), float(d), float(a),
                                m["status"], share, m.get("heading", ""), m.get("cut"), m.get("reason", "")))
    rings = []
    if reference is not None:
        # The stored percentiles themselves, so a script can check the rings against the reference.
        rings += [Ring("unrelated p10", reference.quantiles.get("p10", reference.quantile(0.1)), "reference"),
                  Ring("unrelated median", reference.median, "reference"),
                  Ring("unrelated p90", reference.quantiles.get("p90", reference.quantile(0.9)), "reference")]
    for p in points:
        if p.status != "dropped" and p.cut is not None:
            rings.append(Ring(f"cut of {p.document[:30]}", p.cut, "cut"))
    return StarMap(question, points, rings, knn_recall_angles(vecs, angles) if len(vecs) else 1.0, reference_name)
