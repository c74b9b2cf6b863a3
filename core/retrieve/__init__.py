"""Retrieval: baselines, threshold, the ranked pipeline and its trace (SPEC R1–R9)."""
