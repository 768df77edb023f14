-- The project's tables. Every statement is idempotent so opening an existing store is cheap.
CREATE TABLE IF NOT EXISTS documents (
    doc_id       VARCHAR PRIMARY KEY,
    split        VARCHAR NOT NULL,
    source       VARCHAR NOT NULL,
    sha256       VARCHAR NOT NULL,
    text         VARCHAR NOT NULL,
    header       VARCHAR NOT NULL DEFAULT '',
    parse_config VARCHAR,
    added_at     TIMESTAMP NOT NULL DEFAULT current_timestamp,
    original     VARCHAR NOT NULL DEFAULT ''
);
-- Stores made before documents kept their original text: '' (the same as text).
ALTER TABLE documents ADD COLUMN IF NOT EXISTS original VARCHAR DEFAULT '';
CREATE TABLE IF NOT EXISTS sentences (
    doc_id   VARCHAR NOT NULL,
    sent_id  INTEGER NOT NULL,
    text     VARCHAR NOT NULL,
    n_tokens INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    doc_id   VARCHAR NOT NULL,
    sent_id  INTEGER NOT NULL,
    token_id INTEGER NOT NULL,
    text     VARCHAR NOT NULL,
    lemma    VARCHAR NOT NULL,
    upos     VARCHAR NOT NULL,
    tag      VARCHAR NOT NULL,
    head     INTEGER NOT NULL,
    dep      VARCHAR NOT NULL,
    ent_type VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS entities (
    doc_id     VARCHAR NOT NULL,
    sent_id    INTEGER NOT NULL,
    head_index INTEGER NOT NULL,
    head       VARCHAR NOT NULL,
    head_lemma VARCHAR NOT NULL,
    mention    VARCHAR NOT NULL,
    predicate  VARCHAR NOT NULL,
    dep        VARCHAR NOT NULL,
    ner        VARCHAR NOT NULL,
    start_char INTEGER NOT NULL DEFAULT -1,
    end_char   INTEGER NOT NULL DEFAULT -1,
    predicate_index INTEGER NOT NULL DEFAULT -1,
    phrase     VARCHAR NOT NULL DEFAULT '',
    proper     BOOLEAN NOT NULL DEFAULT false
);
-- Stores made before mentions had character offsets: their rows read -1 until re-ingested.
ALTER TABLE entities ADD COLUMN IF NOT EXISTS start_char INTEGER DEFAULT -1;
ALTER TABLE entities ADD COLUMN IF NOT EXISTS end_char INTEGER DEFAULT -1;
-- Stores made before mentions had their predicate's token index: -1 until re-ingested (the
-- ingest re-extracts them from the parse cache, see ENTITY_FORMAT_VERSION).
ALTER TABLE entities ADD COLUMN IF NOT EXISTS predicate_index INTEGER DEFAULT -1;
-- Stores made before mentions had their head's phrase: empty until re-ingested (as above).
ALTER TABLE entities ADD COLUMN IF NOT EXISTS phrase VARCHAR DEFAULT '';
ALTER TABLE entities ADD COLUMN IF NOT EXISTS proper BOOLEAN DEFAULT false;
-- Stores made while coreference chains were an option (features.chains, removed) have a
-- table of chain rows that nothing reads any more: it goes at the first write.
DROP TABLE IF EXISTS chains;
CREATE TABLE IF NOT EXISTS runs (
    run_id      VARCHAR PRIMARY KEY,
    started_at  TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    status      VARCHAR NOT NULL,
    config      VARCHAR NOT NULL,
    results     VARCHAR
);
CREATE TABLE IF NOT EXISTS assignments (
    run_id    VARCHAR NOT NULL,
    doc_id    VARCHAR NOT NULL,
    sent_id   INTEGER NOT NULL,
    entity_id BIGINT NOT NULL,
    head      VARCHAR NOT NULL,
    mention   VARCHAR NOT NULL,
    predicate VARCHAR NOT NULL,
    dep       VARCHAR NOT NULL,
    template  INTEGER NOT NULL,
    slot      INTEGER NOT NULL
);
