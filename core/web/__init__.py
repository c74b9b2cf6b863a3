"""The public-web fallback (SPEC W1–W7): search, read, mark, mask, and the review queue."""
