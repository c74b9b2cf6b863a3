"""The catalog's tables as DuckDB creates them, and the columns added since version 1 (store/catalog)."""

from __future__ import annotations

from datetime import UTC, datetime

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS spaces (
    space_id VARCHAR PRIMARY KEY,
    name VARCHAR UNIQUE NOT NULL,
    created_at TIMESTAMP NOT NULL,
    embed_model VARCHAR NOT NULL,
    dim INTEGER NOT NULL,
    encrypted BOOLEAN NOT NULL DEFAULT FALSE,
    tenant VARCHAR NOT NULL DEFAULT 'default',
    owner VARCHAR NOT NULL DEFAULT '',
    kdf VARCHAR NOT NULL DEFAULT '',
    wrapped_key BLOB
);
CREATE TABLE IF NOT EXISTS documents (
    doc_id VARCHAR PRIMARY KEY,
    space_id VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    title VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL,
    revision INTEGER NOT NULL,
    status VARCHAR NOT NULL,          -- pending | active | archived | replaced | deleted
    bytes BIGINT NOT NULL,
    pages INTEGER NOT NULL DEFAULT 0,
    pages_without_text INTEGER NOT NULL DEFAULT 0,
    pages_ocr INTEGER NOT NULL DEFAULT 0,
    figures_described INTEGER NOT NULL DEFAULT 0,
    decorations_skipped INTEGER NOT NULL DEFAULT 0,
    visual_pages VARCHAR NOT NULL DEFAULT '{}',  -- pages behind the three counters above (JSON)
    chunks INTEGER NOT NULL DEFAULT 0,
    chars INTEGER NOT NULL DEFAULT 0,
    chars_per_token DOUBLE NOT NULL DEFAULT 0,
    cjk_share DOUBLE NOT NULL DEFAULT 0,
    resplits INTEGER NOT NULL DEFAULT 0,
    warnings VARCHAR NOT NULL DEFAULT '[]',
    ingested_at TIMESTAMP NOT NULL,
    meta_ct VARCHAR NOT NULL DEFAULT ''   -- encrypted spaces: sealed {title, path, warnings}
);
CREATE SEQUENCE IF NOT EXISTS ingest_log_seq;
CREATE TABLE IF NOT EXISTS ingest_log (
    id BIGINT PRIMARY KEY DEFAULT nextval('ingest_log_seq'),
    space_id VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    logged_at TIMESTAMP NOT NULL,
    outcome VARCHAR NOT NULL,         -- ingested | unchanged | failed | cancelled | interrupted
    doc_id VARCHAR,
    message VARCHAR NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS situating_notes (
    note_key VARCHAR PRIMARY KEY,     -- hash of (model, title, chunk text); keyed hash in encrypted spaces
    note VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS memory_keys (
    tenant VARCHAR NOT NULL,
    owner VARCHAR NOT NULL,
    kdf VARCHAR NOT NULL,             -- the owner's memory key, wrapped like a space's data key
    wrapped_key BLOB NOT NULL,
    PRIMARY KEY (tenant, owner)
);
CREATE TABLE IF NOT EXISTS baselines (
    space_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,            -- passage_pairs | question_nearest:<script>
    measured_at TIMESTAMP NOT NULL,
    chunk_count INTEGER NOT NULL,
    dist VARCHAR NOT NULL,            -- JSON: n, median, quantiles, values
    PRIMARY KEY (space_id, kind)
);
CREATE TABLE IF NOT EXISTS eval_runs (
    run_id VARCHAR PRIMARY KEY,
    space_id VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    name VARCHAR NOT NULL,            -- the question set's file name
    metrics VARCHAR NOT NULL,         -- JSON: per variant, numbers only
    payload VARCHAR NOT NULL          -- JSON per question and variant; sealed in encrypted spaces
);
CREATE TABLE IF NOT EXISTS review_items (
    review_id VARCHAR PRIMARY KEY,
    space_id VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    status VARCHAR NOT NULL,          -- pending | approved | rejected
    payload VARCHAR NOT NULL,         -- JSON: question, answer, sources, snapshot, entry; sealed in encrypted spaces
    decided_at TIMESTAMP,
    decided_by VARCHAR NOT NULL DEFAULT '',
    reason VARCHAR NOT NULL DEFAULT '',  -- sealed in encrypted spaces
    doc_id VARCHAR                    -- the document an approval wrote
);
CREATE TABLE IF NOT EXISTS review_rejections (
    space_id VARCHAR NOT NULL,
    review_id VARCHAR NOT NULL,
    url_key VARCHAR NOT NULL,         -- normalised URL; a keyed hash of it in encrypted spaces
    content_hash VARCHAR NOT NULL,    -- of the page's main text; keyed in encrypted spaces
    simhash BIGINT NOT NULL,
    rejected_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS structured_spec (
    space_id VARCHAR PRIMARY KEY,
    spec VARCHAR NOT NULL,            -- JSON IndexSpec; sealed text in encrypted spaces
    generation INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS structured_rows (
    space_id VARCHAR NOT NULL,
    doc_id VARCHAR NOT NULL,
    revision INTEGER NOT NULL,
    data VARCHAR NOT NULL,            -- JSON {field: verbatim value}; sealed in encrypted spaces
    PRIMARY KEY (space_id, doc_id)
);
"""

CATALOG_VERSION = "6"
# Tables holding a space's rows, in the order a backup restores them.
SPACE_TABLES = ("spaces", "documents", "baselines", "structured_spec", "structured_rows", "review_items",
                "review_rejections", "eval_runs", "passage_log")

# Columns added after version 1; existing data folders gain them at open.
MIGRATIONS = [
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS tenant VARCHAR DEFAULT 'default'",
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS owner VARCHAR DEFAULT ''",
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS kdf VARCHAR DEFAULT ''",
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS wrapped_key BLOB",
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS meta_ct VARCHAR DEFAULT ''",
    # W1: the public-web fallback, off unless switched on for the space.
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS web BOOLEAN DEFAULT FALSE",
    # I5: the pages behind pages_ocr / figures_described / decorations_skipped.
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS visual_pages VARCHAR DEFAULT '{}'",
    # Digest over the document's chunk ids at commit (store/integrity.py); '' for documents stored before it.
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS chunk_digest VARCHAR DEFAULT ''",
    # How the document's passages were keyed (ingest/keys.py KEYS_VERSION); 0 for documents stored before.
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS keys_version INTEGER DEFAULT 0",
    # Row codes (store/rowmac.py, issue 59): a plaintext space's code key, and the mark a space records once
    # every one of its passages carries a code ('' until then).
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS row_key BLOB",
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS rows_bound VARCHAR DEFAULT ''",
    # The structured index's codes (store/structured.py, issue 59): per row, and the spec's over the set of rows.
    "ALTER TABLE structured_rows ADD COLUMN IF NOT EXISTS mac VARCHAR DEFAULT ''",
    "ALTER TABLE structured_spec ADD COLUMN IF NOT EXISTS mac VARCHAR DEFAULT ''",
]


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)
