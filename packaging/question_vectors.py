"""Write the reference questions' vectors for the default embedder into resources/baseline/vectors/.

Shipped so that a fresh data folder embeds none of them (core/retrieve/baseline.py question_vectors). Run again
after editing resources/baseline/questions.jsonl or knowledge.jsonl or changing the default model; the stale file
is then unused, and tests/core/test_baseline_vectors.py fails until it is replaced:

    python packaging/question_vectors.py
"""

from __future__ import annotations

from pathlib import Path

from biny.core.config import EmbeddingSettings
from biny.core.embed.factory import make_embedder
from biny.core.retrieve.baseline import ship_question_vectors

FOLDER = Path(__file__).resolve().parents[1] / "resources" / "baseline" / "vectors"


def main() -> None:
    for old in FOLDER.glob("questions-*.npy"):
        old.unlink()
    embedder = make_embedder(EmbeddingSettings().model)
    for path in ship_question_vectors(embedder, FOLDER):
        print(path.relative_to(FOLDER.parents[2]), path.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
