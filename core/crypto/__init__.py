"""Encryption at rest (SPEC I8, R7): per-space keys, sealed text, a keyed blind index."""
