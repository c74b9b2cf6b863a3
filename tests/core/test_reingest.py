"""Re-ingest embeds only what changed (issue: close to the physical limit): chunk-level vector reuse."""

from __future__ import annotations

from pathlib import Path

from biny.core.config import Settings
from biny.core.engine import Engine
from biny.core.text.units import units_of
from tests.conftest import CountingEmbedder, corpus


def _texts(eng: Engine, space: str) -> list[str]:
    """The space's passages, opened."""
    row = eng.catalog.spaces.named(space)
    crypto = eng._retriever.keys.crypto(row)
    return [crypto.open_record(rec).text for doc in eng.catalog.docs.of(row.space_id, ("active",))
            for rec in eng.chunks.doc_chunks(row.space_id, doc.doc_id)]


def _sentences(texts: list[str]) -> int:
    """Sentence vectors made with them (issue 57): one embedding per unit the answer reads."""
    return sum(len(units_of(t)) for t in texts)


def test_editing_one_paragraph_re_embeds_only_its_chunks(tmp_path: Path) -> None:
    settings = Settings()
    settings.chunking.target_tokens = 64  # many small chunks, cheaply
    settings.chunking.overlap_tokens = 24  # with overlap: the next chunk starts inside the edited one
    emb = CountingEmbedder()
    text = corpus("cn_laws", "民法典__继承编.md").read_text(encoding="utf-8")
    doc = tmp_path / "law.md"
    doc.write_text(text, encoding="utf-8")
    with Engine.open(tmp_path / "home", settings=settings, embedder=emb) as eng:
        eng.create_space("s")  # encrypted: reuse reads sealed chunks back
        first = eng.ingest("s", [doc]).files[0]
        texts = _texts(eng, "s")
        assert first.chunks >= 30 and emb.passages_embedded == first.chunks + _sentences(texts)
        paragraphs = text.split("\n\n")
        # Each revision edits one more paragraph, at spots spread over the document (the greedy splitter alone
        # shifted up to four following boundaries before one re-aligned).
        for revision, at in enumerate((len(paragraphs) // 2, len(paragraphs) // 5, 4 * len(paragraphs) // 5), 2):
            paragraphs[at] = paragraphs[at] + "（本款于修订时补充说明。）"
            doc.write_text("\n\n".join(paragraphs), encoding="utf-8")
            before = emb.passages_embedded
            second = eng.ingest("s", [doc]).files[0]
            assert second.outcome == "ingested" and f"revision {revision}" in second.message
            new = [t for t in _texts(eng, "s") if t not in texts]
            texts = _texts(eng, "s")
            assert len(new) <= 3 and emb.passages_embedded - before == len(new) + _sentences(new), second.message
            assert "unchanged, not embedded again" in second.message
        # The reused vectors are the stored ones: asking finds the edited and the untouched text alike.
        hit = eng.ask("s", "本款于修订时补充说明").chunks
        assert hit and "补充说明" in hit[0].text
        assert len(eng.documents("s")) == 1 and eng.documents("s")[0].revision == 4
