"""Memory: facts per scope and the recall chain of the card (SPEC M1–M7)."""
