-- baton team mode, schema version 1 (docs/team.md). Applied under pg_advisory_xact_lock by
-- src/team/db.ts, which records the version in baton.schema_version.
create table baton.machines (
  name text primary key,
  joined_at timestamptz not null default now(),
  last_seen timestamptz not null default now()
);

-- A shared session: its owner (null once released), the fencing epoch bumped by every take,
-- the team's last seq and h, and what a list shows. Never a local absolute path.
create table baton.sessions (
  id text primary key,
  owner text references baton.machines(name),
  epoch bigint not null default 1,
  since timestamptz not null default now(),
  last_seq bigint not null default 0,
  last_h text not null default '',
  title text not null default '',
  project text,
  workspace text,
  shared_by text not null,
  shared_at timestamptz not null default now()
);

-- The team's copy of each log: the line's exact bytes (without its newline) and its h.
create table baton.events (
  session text not null references baton.sessions(id) on delete cascade,
  seq bigint not null,
  h text not null,
  line bytea not null,
  epoch bigint not null,
  origin text not null,
  received_at timestamptz not null default now(),
  primary key (session, seq)
);

-- The task pointer's current state per session (pointer/state.json of the owner).
create table baton.pointers (
  session text primary key references baton.sessions(id) on delete cascade,
  state jsonb not null,
  updated_at timestamptz not null default now()
);
