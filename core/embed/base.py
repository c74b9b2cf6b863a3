"""The embedder protocol every runtime implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors.

    ``model_id`` is recorded by each space; a space refuses vectors from another id.
    ``max_tokens`` is the model's window including special tokens; inputs past it are
    truncated or windowed by the runtime, so the chunker keeps below it.
    """

    # Read-only: a class attribute (local models) or a property (a remote model learns them from its server).
    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def embed_passages(self, texts: list[str]) -> Vectors: ...

    def embed_queries(self, texts: list[str]) -> Vectors: ...

    def token_count(self, text: str) -> int:
        """Tokens the model feeds for ``text`` as a passage, special tokens and prefix included."""
        ...
