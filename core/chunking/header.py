"""Contextual header (SPEC I7): what is prefixed to a chunk's *embedding input* only.

The stored and displayed chunk text never carries it. The optional situating note
(from an LLM, when one is configured) slots in through ``note``.
"""

from __future__ import annotations


def embedding_input(title: str, heading_path: list[str], text: str, note: str = "") -> str:
    lines = [title.strip()] if title.strip() else []
    path = " > ".join(h for h in heading_path if h and h != title)
    if path:
        lines.append(path)
    if note.strip():
        lines.append(note.strip())
    if not lines:
        return text
    return "\n".join(lines) + "\n\n" + text
