// The index schema as numbered migrations (0001_init, ...). The database records how many
// it has applied in PRAGMA user_version. The index is a projection, so a database whose
// version differs from the latest is never migrated in place: it is rebuilt from the logs.

export interface Migration {
  id: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: '0001_init',
    sql: `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT
) WITHOUT ROWID;

-- One row per session: what listing needs, and where the projection stopped in the log.
CREATE TABLE sessions (
  num             INTEGER PRIMARY KEY,          -- search rows use rowid = num * 2^32 + seq
  id              TEXT NOT NULL UNIQUE,
  title           TEXT NOT NULL DEFAULT '',
  title_seq       INTEGER NOT NULL DEFAULT 0,
  cwd             TEXT,
  git_root        TEXT,
  created_at      TEXT NOT NULL DEFAULT '',
  last_touched_at TEXT NOT NULL DEFAULT '',
  events          INTEGER NOT NULL DEFAULT 0,
  last_seq        INTEGER NOT NULL DEFAULT 0,
  last_h          TEXT NOT NULL DEFAULT '',
  archived        INTEGER NOT NULL DEFAULT 0,
  lease_until     TEXT,
  pointer_status  TEXT,
  open_episodes   TEXT NOT NULL DEFAULT '[]',   -- JSON [{episode, provider, opened_at}]
  redactions      TEXT NOT NULL DEFAULT '{}',   -- JSON {seq: [pattern]} from context.rewritten (session redact)
  corrupt         TEXT,                         -- JSON {line, offset, reason} when WS201
  log_offset      INTEGER NOT NULL DEFAULT 0,   -- bytes of the log projected (complete lines)
  line_start      INTEGER NOT NULL DEFAULT 0,   -- where the last projected line starts
  log_size        INTEGER NOT NULL DEFAULT 0,   -- stat of the log when last looked at
  log_ctime       TEXT NOT NULL DEFAULT '',
  log_ino         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_by_touch ON sessions (last_touched_at DESC, id);
CREATE INDEX sessions_by_cwd ON sessions (cwd, last_touched_at DESC, id);

-- A log that stopped being an extension of what was indexed (index.md).
CREATE TABLE conflicts (
  id          INTEGER PRIMARY KEY,
  session     TEXT NOT NULL,
  detected_at TEXT NOT NULL,
  indexed_seq INTEGER NOT NULL,
  indexed_h   TEXT NOT NULL,
  detail      TEXT NOT NULL
);
CREATE INDEX conflicts_by_session ON conflicts (session, id);

-- Full-text search over event text, in chunks of up to 32 events of one session
-- (chunks.ts); rowid = sessions.num * 2^32 + the chunk's first seq. Contentless: the text
-- lives in the log (the truth) and snippets are cut from the lines at the byte offsets
-- \`offs\`, with \`session redact\` patterns applied; only already-redacted terms are indexed.
CREATE VIRTUAL TABLE event_text USING fts5 (
  text,
  seqs UNINDEXED,
  offs UNINDEXED,
  types UNINDEXED,
  content = '',
  contentless_delete = 1,
  contentless_unindexed = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
`,
  },
  {
    // A catch-up rewrites last_touched_at of every session it touches; an index holding it
    // per workspace cost one more page write per session (a quarter of a catch-up's pages).
    // One workspace holds few sessions: they are sorted after the lookup.
    id: '0002_cwd_index_without_touch',
    sql: `
DROP INDEX sessions_by_cwd;
CREATE INDEX sessions_by_cwd ON sessions (cwd);
`,
  },
  {
    // Search chunks a listing caught up but did not write into event_text yet (writer.ts):
    // appended here in rowid order (a few pages), moved into event_text by the next reader
    // that needs search (or past a bound). rid = the event_text rowid the chunk will have.
    id: '0003_text_pending',
    sql: `
CREATE TABLE text_pending (
  rid   INTEGER NOT NULL,
  text  TEXT NOT NULL,
  seqs  TEXT NOT NULL,
  offs  TEXT NOT NULL,
  types TEXT NOT NULL
);
`,
  },
  {
    // Stemmed search (porter over unicode61: "retry" finds "retries") and transcript items
    // with their tool names and files (eventText). The tokenizer is 0001's: an index is never
    // migrated in place (an index of an earlier version is rebuilt from the logs), so this
    // step only moves the version on, and every index of version 3 or less is rebuilt.
    id: '0004_porter_items',
    sql: 'SELECT 1;',
  },
  {
    // Search chunks record a transcript item's agent, role and kind with its type
    // (project.ts indexedType), so item filters drop chunks in SQL: an older index is rebuilt.
    id: '0005_item_types',
    sql: 'SELECT 1;',
  },
  {
    // The published pointer's text is searchable: one row per session at the end of its rowid
    // range, its words read from state.json (pointer-text.ts). An older index has none: rebuilt.
    id: '0006_pointer_text',
    sql: 'SELECT 1;',
  },
  {
    // last_touched_at is the session's last activity: an event recorded after the fact (a
    // transcript item, a history import's session and episodes) counts at its payload's `at`
    // (core/time.ts, touchedAfter). An older index holds the import's own time: rebuilt.
    id: '0007_activity_times',
    sql: 'SELECT 1;',
  },
  {
    // A tool call's shell command is searchable (project.ts eventText): "what was run" finds
    // `printf … > notes.txt` for the seven agents whose tool-call text is empty. Rebuilt.
    id: '0008_tool_commands',
    sql: 'SELECT 1;',
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
