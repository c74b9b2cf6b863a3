"""Durable state: LanceDB (chunks + vectors) and DuckDB (catalog), written by one writer."""
