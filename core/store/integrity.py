"""Do a document's stored passages match what the catalog recorded when it was committed? (issue 22)

The catalog keeps, per document, its passage count and a digest over its chunk ids
(``chunk_digest``). Comparing them with the chunk table finds passages removed, added,
or moved to another document (a changed ``doc_id``) — tampering or damage that would
otherwise show text under the wrong document, or silently answer from half a document.
Checked when a data folder opens (mismatches are marked damaged, by the writer) and
whenever a space's matrix is loaded for answering (mismatching documents are left out
of answers and named in the trace; a read never writes).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from biny.core.i18n import t


def chunk_digest(chunk_ids: Iterable[str]) -> str:
    """Order-free digest of a document's chunk ids."""
    h = hashlib.sha256()
    for cid in sorted(chunk_ids):
        h.update(cid.encode())
        h.update(b"\n")
    return h.hexdigest()[:32]


def mismatches(expected: Mapping[str, tuple[int, str]], doc_ids: Sequence[str],
               chunk_ids: Sequence[str]) -> dict[str, str]:
    """Documents of ``expected`` (doc_id → (passages, digest); digest "" = recorded before digests)
    whose stored rows (``doc_ids[i]`` owns ``chunk_ids[i]``) differ, with why."""
    stored: dict[str, list[str]] = defaultdict(list)
    for doc_id, chunk_id in zip(doc_ids, chunk_ids, strict=True):
        if doc_id in expected:
            stored[doc_id].append(chunk_id)
    out: dict[str, str] = {}
    for doc_id, (count, digest) in expected.items():
        have = stored.get(doc_id, [])
        if len(have) != count:
            out[doc_id] = f"{len(have)} of its {count} passages are stored"
        elif digest and chunk_digest(have) != digest:
            out[doc_id] = t("its stored passages are not the ones it was committed with")
    return out
