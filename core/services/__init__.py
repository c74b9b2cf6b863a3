"""The services ``Engine`` wires together, one job each.

``DataFolder`` (the stores of one data folder), ``Models`` (embedder and chat model),
``KeySession`` (keys and passphrases), ``Spaces``, ``Documents`` (ingest and the
library), ``Answers`` (retrieval), ``Memory`` (``engine.memory``) and ``Backups``.
Services call the stores for reads and the writer for every write.
"""
