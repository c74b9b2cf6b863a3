"""Parsers: bytes on disk → ``ParsedDocument`` (blocks of text with page and heading info)."""

from biny.core.document import Block, ParsedDocument
from biny.core.ingest.parse import SUPPORTED_SUFFIXES, parse_file

__all__ = ["SUPPORTED_SUFFIXES", "Block", "ParsedDocument", "parse_file"]
