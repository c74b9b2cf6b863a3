"""Stage-neutral text analysis: identifiers, terms, aspects, scripts.

Ingest computes these from plaintext and stores them (blinded in encrypted spaces);
retrieval computes the question's and compares. Both import this package; it
imports neither.
"""
