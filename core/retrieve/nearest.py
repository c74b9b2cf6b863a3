"""R5: the vector-nearest chunk within the cut is always in the context — added, not swapped."""

from __future__ import annotations

from biny.core.i18n import msg
from biny.core.retrieve.candidates import Candidate
from biny.core.trace import Stage, Trace


def keep_nearest(final: list[Candidate], kept: list[Candidate], trace: Trace,
                 *, enabled: bool = True) -> list[Candidate]:
    """``final`` with the nearest kept candidate appended if rerank moved it out."""
    nearest = kept[0] if kept else None
    added = False
    if enabled and nearest is not None and all(c.row != nearest.row for c in final):
        final = [*final, nearest]
        added = True
    trace.add(Stage(
        "nearest",
        (msg("nearest chunk added back (rerank had moved it out)") if added else
         msg("nearest chunk already in the context") if nearest else msg("no chunk within the cut")),
        kept=[nearest.chunk_id] if nearest else [],
    ))
    return final
