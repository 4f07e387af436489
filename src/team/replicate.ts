// The replicator: ships chained events between this machine's store and the team's copy in
// PostgreSQL (docs/team.md). Source of truth: each machine's local log for what it wrote;
// PostgreSQL for ownership (owner, epoch) and the team-wide history. Who writes the team's
// copy: only the owner at the current epoch (checked under FOR UPDATE in the same
// transaction as the insert). What a crash leaves: a push is one transaction (all or
// nothing, rerun pushes from the team's last seq); a pull appends verified batches under the
// session mutex (rerun pulls from the local last seq). Nothing is acknowledged twice.
import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { basename, join } from 'node:path';
import { BatonError, fail } from '../core/errors.ts';
import { checkLine } from '../core/events.ts';
import { emptyView, foldEvent } from '../core/session.ts';
import { removeLock } from '../store/lease.ts';
import { type OwnershipMarker, conflictsOf, readMarker, removeMarker, writeMarker } from '../store/replica.ts';
import { writeMarkers } from './markers.ts';
import type { FsStore } from '../store/store.ts';
import { type TeamConfig, readConfig } from './config.ts';
import { CHANNEL, type Sql, type TransactionSql } from './db.ts';
import { dueByRules, exceptFromRules } from './projects.ts';

const BATCH = 1000;

export interface Team {
  store: FsStore;
  cfg: TeamConfig;
  sql: Sql;
}

export interface SessionRow {
  id: string;
  owner: string | null;
  epoch: number;
  since: string;
  last_seq: number;
  last_h: string;
  title: string;
  project: string | null;
  workspace: string | null;
}

type Tx = Sql | TransactionSql;

function toRow(r: Record<string, unknown>): SessionRow {
  return {
    id: String(r.id),
    owner: (r.owner as string | null) ?? null,
    epoch: Number(r.epoch),
    since: new Date(r.since as string | Date).toISOString(),
    last_seq: Number(r.last_seq),
    last_h: String(r.last_h),
    title: String(r.title ?? ''),
    project: (r.project as string | null) ?? null,
    workspace: (r.workspace as string | null) ?? null,
  };
}

export async function sessionRows(sql: Tx): Promise<SessionRow[]> {
  const rows = await sql`select id, owner, epoch, since, last_seq, last_h, title, project, workspace from baton.sessions order by id`;
  return rows.map(toRow);
}

async function lockRow(tx: Tx, id: string): Promise<SessionRow | null> {
  const rows = await tx`select id, owner, epoch, since, last_seq, last_h, title, project, workspace from baton.sessions where id = ${id} for update`;
  return rows.length ? toRow(rows[0]) : null;
}

/**
 * One pass over a local log: every event's h (the chain to compare with the team's), the raw
 * lines from `fromSeq` on (what a push sends), and the folded view (what a list shows).
 */
interface LocalLog {
  id: string;
  lines: string[];
  /** The seq of lines[0]. */
  from: number;
  /**
   * The bytes read, all verified (-1 when the log has a torn or corrupt tail). The log only
   * grows while this machine owns the session (a truncation is a repair of a torn tail or a
   * former owner's fork set aside), so a log still this size is the one that was read.
   */
  bytes: number;
  hs: string[];
  lastSeq: number;
  lastH: string;
  title: string;
  project: string | null;
  workspace: string | null;
}

function readLocal(store: FsStore, id: string, fromSeq: number): LocalLog {
  const lines: string[] = [];
  const hs: string[] = [''];
  const v = emptyView(id);
  let bytes = -1;
  let lastSeq = 0;
  let lastH = '';
  if (store.exists(id)) {
    const scan = store.events(id, 1, (ev, raw) => {
      hs[ev.seq] = ev.h;
      foldEvent(v, ev);
      if (ev.seq >= fromSeq) lines.push(raw);
    });
    lastSeq = scan.lastSeq;
    lastH = scan.lastH;
    if (!scan.torn && !scan.corrupt) bytes = scan.validBytes;
  }
  // Never a local absolute path: the workspace's folder name only.
  const ws = v.workspace;
  return { id, lines, from: fromSeq, bytes, hs, lastSeq, lastH, title: v.title, project: ws?.git_root ? basename(ws.git_root) : null, workspace: ws?.cwd ? basename(ws.cwd) : null };
}


function markerFor(cfg: TeamConfig, row: SessionRow): OwnershipMarker {
  return { machine: cfg.machine, owner: row.owner, epoch: row.epoch, since: row.since };
}

export interface PushResult {
  session: string;
  pushed: number;
  last_seq: number;
}

export interface Refusal {
  session: string;
  error: BatonError;
}

/**
 * Sessions a push takes in one transaction: at most this many, and at most this many bytes of
 * log (a session bigger than that goes alone: a session is never split across transactions,
 * so a push of one session stays all or nothing).
 */
const GROUP_SESSIONS = 500;
const GROUP_BYTES = 16 << 20;

function logSize(store: FsStore, id: string): number {
  return fs.statSync(join(store.dir(id), 'events.jsonl'), { throwIfNoEntry: false })?.size ?? 0;
}

function groupsOf(store: FsStore, ids: string[]): string[][] {
  const groups: string[][] = [];
  let cur: string[] = [];
  let bytes = 0;
  for (const id of ids) {
    const size = logSize(store, id);
    if (cur.length && (cur.length >= GROUP_SESSIONS || bytes + size > GROUP_BYTES)) {
      groups.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(id);
    bytes += size;
  }
  if (cur.length) groups.push(cur);
  return groups;
}

/** The rows of `ids`, locked (FOR UPDATE, in id order so two pushes never deadlock). */
async function lockRows(tx: Tx, ids: string[]): Promise<Map<string, SessionRow>> {
  const rows = await tx`select id, owner, epoch, since, last_seq, last_h, title, project, workspace from baton.sessions
    where id = any(${ids}::text[]) order by id for update`;
  return new Map(rows.map((r) => [String(r.id), toRow(r)]));
}

/** A field of COPY's text format: backslash, tab, newline and carriage return escaped. */
function copyField(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : s;
}

interface Outgoing {
  row: SessionRow;
  local: LocalLog;
  /** The lines after the team's last seq. */
  lines: string[];
}

/**
 * The push proper, inside a transaction that holds the rows of `entries` (FOR UPDATE), each
 * already checked to be owned by this machine at the epoch of its marker — so no other
 * machine can take one before this commits, and a stale owner never gets here. Per session:
 * the team's copy must be a prefix of the local log (else that session is refused with
 * WS203 and the others go on); then every session's new lines go in one COPY into
 * baton.events (the primary key refuses a seq twice), and the bookkeeping (last seq and h,
 * title, pointer, NOTIFY) is three statements for the whole group, pipelined.
 */
async function pushLocked(tx: Tx, t: Team, entries: { row: SessionRow; local: LocalLog }[], refused: Refusal[]): Promise<PushResult[]> {
  const out: Outgoing[] = [];
  const results: PushResult[] = [];
  for (const { row, local } of entries) {
    if (local.lastSeq < row.last_seq || (row.last_seq > 0 && local.hs[row.last_seq] !== row.last_h)) {
      refused.push({
        session: row.id,
        error: new BatonError('WS203', `team history diverges from the local log of ${row.id} at seq ${row.last_seq}: the team's copy is not a prefix of this owner's log; nothing pushed`, {
          session: row.id,
          seq: row.last_seq,
        }),
      });
      continue;
    }
    const lines = local.lines.slice(row.last_seq + 1 - local.from);
    results.push({ session: row.id, pushed: lines.length, last_seq: row.last_seq + lines.length });
    if (lines.length) out.push({ row, local, lines });
  }
  if (out.length === 0) return results;
  const origin = copyField(t.cfg.machine);
  const w = await tx`copy baton.events (session, seq, h, line, epoch, origin) from stdin`.writable();
  await pipeline(
    Readable.from(
      (function* () {
        let chunk = '';
        for (const { row, local, lines } of out) {
          const head = `${copyField(row.id)}\t`;
          const tail = `\t${row.epoch}\t${origin}\n`;
          let seq = row.last_seq;
          for (const line of lines) {
            seq++;
            chunk += `${head}${seq}\t${copyField(local.hs[seq])}\t\\\\x${Buffer.from(line, 'utf8').toString('hex')}${tail}`;
            if (chunk.length >= 1 << 20) {
              yield chunk;
              chunk = '';
            }
          }
        }
        if (chunk) yield chunk;
      })(),
    ),
    w,
  );
  const ids = out.map((o) => o.row.id);
  const pointers = out.flatMap((o) => {
    const state = readPointer(t.store, o.row.id);
    return state === null ? [] : [[o.row.id, state]];
  });
  await Promise.all([
    tx`update baton.sessions s set last_seq = u.last_seq, last_h = u.last_h, title = u.title
      from unnest(${ids}::text[], ${out.map((o) => String(o.row.last_seq + o.lines.length))}::bigint[], ${out.map((o) => o.local.hs[o.row.last_seq + o.lines.length])}::text[], ${out.map((o) => o.local.title)}::text[])
        as u(id, last_seq, last_h, title)
      where s.id = u.id`,
    pointers.length
      ? tx`insert into baton.pointers (session, state)
          select u.session, u.state::jsonb from unnest(${pointers.map((p) => p[0])}::text[], ${pointers.map((p) => p[1])}::text[]) as u(session, state)
          on conflict (session) do update set state = excluded.state, updated_at = now()`
      : null,
    tx`select pg_notify(${CHANNEL}, p) from unnest(${out.map((o) => `${o.row.id} ${o.row.last_seq + o.lines.length}`)}::text[]) as p`,
  ]);
  return results;
}

/**
 * Pushes this machine's events after the team's last seq, for every session of `ids` it owns
 * at the epoch of its marker, in transactions of many sessions each (groupsOf). Sessions
 * this machine does not own (or no longer does) are skipped; a session whose team copy is not
 * a prefix of its log is refused (WS203) and the others still go.
 */
export async function pushMany(t: Team, ids: string[], known?: Map<string, LocalLog>): Promise<{ pushed: PushResult[]; refused: Refusal[] }> {
  const markers = new Map<string, OwnershipMarker>();
  for (const id of ids) {
    const m = t.store.exists(id) ? readMarker(t.store.dir(id)) : null;
    if (m && m.owner === t.cfg.machine) markers.set(id, m);
  }
  const pushed: PushResult[] = [];
  const refused: Refusal[] = [];
  for (const group of groupsOf(t.store, [...markers.keys()])) {
    await t.sql.begin(async (tx) => {
      const rows = await lockRows(tx, group);
      const entries = group.flatMap((id) => {
        const row = rows.get(id);
        if (!row || row.owner !== t.cfg.machine || row.epoch !== markers.get(id)?.epoch) return [];
        // A log read before the lock (shareMany) is good if nothing was appended since.
        const pre = known?.get(id);
        const local = pre && pre.from <= row.last_seq + 1 && logSize(t.store, id) === pre.bytes ? pre : readLocal(t.store, id, row.last_seq + 1);
        return [{ row, local }];
      });
      pushed.push(...(await pushLocked(tx, t, entries, refused)));
    });
  }
  return { pushed, refused };
}

/**
 * Pushes one session (see pushMany). Returns null when this machine is not (or no longer) the
 * owner; throws the refusal (WS203) when the team's copy is not a prefix of the local log.
 */
export async function push(t: Team, id: string): Promise<PushResult | null> {
  const r = await pushMany(t, [id]);
  if (r.refused.length) throw r.refused[0].error;
  return r.pushed[0] ?? null;
}

/** The owner's state.json (the task pointer) as JSON text, or null when the session has none (or it does not parse). */
function readPointer(store: FsStore, id: string): string | null {
  try {
    return JSON.stringify(JSON.parse(fs.readFileSync(join(store.dir(id), 'state.json'), 'utf8')));
  } catch {
    return null;
  }
}

export interface PullResult {
  session: string;
  pulled: number;
  last_seq: number;
  /** Events of this machine set aside in conflicts/ (a former owner's fork). */
  conflict?: { path: string; events: number };
}

/**
 * Brings the local replica to the team's history: verifies that the team's copy extends
 * the local log (else WS203, or, for a former owner, sets its fork aside in conflicts/),
 * then appends the team's lines byte for byte, each checked against the chain.
 */
export async function pull(t: Team, id: string, row: SessionRow, tx: Tx = t.sql): Promise<PullResult> {
  const marker = t.store.exists(id) ? readMarker(t.store.dir(id)) : null;
  let local = readLocal(t.store, id, Number.MAX_SAFE_INTEGER);
  let conflict: PullResult['conflict'];
  const common = await commonPrefix(tx, id, local.hs, local.lastSeq);
  if (common < local.lastSeq) {
    // Local events the team does not have. Only a former owner (its marker names itself at an
    // older epoch) may have written them: they are its fork, kept in conflicts/.
    const formerOwner = marker && marker.owner === t.cfg.machine && (row.owner !== t.cfg.machine || row.epoch !== marker.epoch);
    if (!formerOwner) {
      fail('WS203', `team history diverges from the local log of ${id} at seq ${common + 1}: the team's copy is not an extension of this machine's log; nothing pulled`, {
        session: id,
        seq: common + 1,
      });
    }
    const kept = t.store.setForkAside(id, common, conflictName(t.store, id, marker.epoch, t.cfg.machine));
    conflict = { path: kept.path, events: kept.moved };
    local = readLocal(t.store, id, Number.MAX_SAFE_INTEGER);
  }
  let at = local.lastSeq;
  let h = local.lastH;
  let pulled = 0;
  for (;;) {
    const rows = await tx`select seq, h, line from baton.events where session = ${id} and seq > ${at} order by seq limit ${BATCH}`;
    if (rows.length === 0) break;
    const lines: string[] = [];
    for (const r of rows) {
      const seq = Number(r.seq);
      const line = Buffer.from(r.line as Uint8Array).toString('utf8');
      const chk = checkLine(line, seq, h);
      const why = seq !== at + lines.length + 1 ? `seq ${seq} where ${at + lines.length + 1} was expected` : !chk.ok ? chk.reason : chk.event.h !== r.h ? 'the row h does not match its line' : null;
      if (why || !chk.ok) {
        if (lines.length) t.store.appendPulled(id, lines);
        if (pulled || lines.length) t.store.afterForeignChange(id);
        fail('WS203', `team history diverges from the local log of ${id} at seq ${seq}: ${why}; refused, the local log keeps seq ${at + lines.length}`, {
          session: id,
          seq,
          reason: why,
        });
      }
      h = chk.event.h;
      lines.push(line);
    }
    t.store.appendPulled(id, lines);
    at += lines.length;
    pulled += lines.length;
  }
  if (pulled) t.store.afterForeignChange(id);
  const dir = t.store.dir(id);
  if (t.store.exists(id)) {
    const m = markerFor(t.cfg, row);
    const cur = readMarker(dir);
    if (!cur || cur.owner !== m.owner || cur.epoch !== m.epoch || cur.machine !== m.machine) writeMarker(dir, m);
  }
  return { session: id, pulled, last_seq: at, ...(conflict ? { conflict } : {}) };
}

/** The largest k with local h_1..h_k equal to the team's (the team's hs are fetched up to the local last seq). */
async function commonPrefix(tx: Tx, id: string, localHs: string[], localLast: number): Promise<number> {
  if (localLast === 0) return 0;
  const rows = await tx`select seq, h from baton.events where session = ${id} and seq <= ${localLast} order by seq`;
  let k = 0;
  for (const r of rows) {
    const seq = Number(r.seq);
    if (seq !== k + 1 || localHs[seq] !== r.h) break;
    k = seq;
  }
  return k;
}

/** conflicts/<epoch>-<machine>.jsonl, or with ~2, ~3 ... when a fork of that epoch was set aside before (resolved ones count too). */
function conflictName(store: FsStore, id: string, epoch: number, machine: string): string {
  const dir = join(store.dir(id), 'conflicts');
  for (let n = 1; ; n++) {
    const name = `${epoch}-${machine}${n > 1 ? `~${n}` : ''}.jsonl`;
    if (!fs.existsSync(join(dir, name)) && !fs.existsSync(join(dir, 'resolved', name))) return name;
  }
}

export interface SyncReport {
  /** Sessions shared by a project rule in this pass (team share --project). */
  shared: string[];
  pushed: PushResult[];
  pulled: PullResult[];
  unshared: string[];
  refused: { session: string; code: string; message: string }[];
}

/** One pass: push what this machine owns, pull everything else the team shares. */
export async function syncOnce(t: Team, only?: Set<string>): Promise<SyncReport> {
  const report: SyncReport = { shared: [], pushed: [], pulled: [], unshared: [], refused: [] };
  await shareByRules(t, report, only);
  const rows = await sessionRows(t.sql);
  const shared = new Set(rows.map((r) => r.id));
  for (const id of t.store.ids()) {
    if (shared.has(id) || (only && !only.has(id))) continue;
    const m = readMarker(t.store.dir(id));
    if (m) {
      // Unshared by its owner: the local copy is this machine's own again.
      removeMarker(t.store.dir(id));
      exceptFromRules(t.store, id);
      report.unshared.push(id);
    }
  }
  // What this machine owns goes out first, many sessions per transaction; the rest comes in.
  const owned = (row: SessionRow): boolean => {
    const marker = t.store.exists(row.id) ? readMarker(t.store.dir(row.id)) : null;
    return row.owner === t.cfg.machine && marker?.owner === t.cfg.machine && marker.epoch === row.epoch;
  };
  const mine = rows.filter((r) => (!only || only.has(r.id)) && owned(r));
  const out = await pushMany(
    t,
    mine.map((r) => r.id),
  );
  report.pushed.push(...out.pushed.filter((p) => p.pushed));
  for (const x of out.refused) report.refused.push({ session: x.session, code: x.error.code, message: x.error.message });
  const pushedHere = new Set(mine.map((r) => r.id));
  for (const row of rows) {
    if ((only && !only.has(row.id)) || pushedHere.has(row.id)) continue;
    try {
      const p = await pull(t, row.id, row);
      if (p.pulled || p.conflict) report.pulled.push(p);
    } catch (e) {
      if (!(e instanceof BatonError)) throw e;
      report.refused.push({ session: row.id, code: e.code, message: e.message });
    }
  }
  return report;
}

/** The project rules' new sessions, shared first (before the team's list is read, so a pass never takes them for unshared). */
async function shareByRules(t: Team, report: SyncReport, only?: Set<string>): Promise<void> {
  const cfg = readConfig(t.store.home) ?? t.cfg;
  const due = dueByRules(t.store, cfg).filter((id) => !only || only.has(id));
  if (!due.length) return;
  const r = await shareMany(t, due);
  for (const x of r.shared) report.shared.push(x.session);
  for (const x of r.refused) report.refused.push({ session: x.session, code: x.error.code, message: x.error.message });
}

export interface ShareResult {
  session: string;
  epoch: number;
  pushed: number;
}

/**
 * `team share ID...`: each session becomes the team's, owned by this machine at epoch 1, and is
 * pushed — many sessions per transaction (groupsOf). First transaction: the rows inserted (one
 * statement) and read back; a session already shared and owned elsewhere is refused (WS105)
 * and the others go on. Then the ownership markers (durable, their fsyncs issued together),
 * then the push (pushMany: a second transaction that locks the rows and checks owner and
 * epoch again). What a crash leaves: rows without events and maybe without markers; the next
 * `sync` pushes the sessions whose marker landed, a second `team share` the others.
 */
export async function shareMany(t: Team, ids: string[]): Promise<{ shared: ShareResult[]; refused: Refusal[] }> {
  const shared: ShareResult[] = [];
  const refused: Refusal[] = [];
  for (const group of groupsOf(t.store, ids)) {
    const locals = new Map(group.map((id) => [id, readLocal(t.store, id, 1)]));
    const ls = [...locals.values()];
    const rows = await t.sql.begin(async (tx) => {
      await tx`insert into baton.sessions (id, owner, epoch, since, title, project, workspace, shared_by)
        select u.id, ${t.cfg.machine}, 1, now(), u.title, u.project, u.workspace, ${t.cfg.machine}
        from unnest(${group}::text[], ${ls.map((l) => l.title)}::text[], ${ls.map((l) => l.project)}::text[], ${ls.map((l) => l.workspace)}::text[]) as u(id, title, project, workspace)
        on conflict (id) do nothing`;
      return lockRows(tx, group);
    });
    const accepted: SessionRow[] = [];
    for (const id of group) {
      const row = rows.get(id);
      if (!row) fail('INTERNAL', `sharing ${id} left no row`);
      const marker = readMarker(t.store.dir(id));
      if (row.owner !== t.cfg.machine || (marker && marker.epoch !== row.epoch)) {
        refused.push({
          session: id,
          error: new BatonError('WS105', `session ${id} is already shared and owned by ${row.owner ?? 'nobody'} since ${row.since}; sync to replicate it, or baton team take ${id}`, {
            session: id,
            owner: row.owner,
            since: row.since,
            command: `baton team take ${id}`,
          }),
        });
        continue;
      }
      accepted.push(row);
    }
    await writeMarkers(accepted.map((row) => ({ dir: t.store.dir(row.id), marker: markerFor(t.cfg, row) })));
    const out = await pushMany(
      t,
      accepted.map((r) => r.id),
      locals,
    );
    refused.push(...out.refused);
    const pushed = new Map(out.pushed.map((p) => [p.session, p.pushed]));
    for (const row of accepted) if (!out.refused.some((x) => x.session === row.id)) shared.push({ session: row.id, epoch: row.epoch, pushed: pushed.get(row.id) ?? 0 });
  }
  return { shared, refused };
}

/** `team share ID` (see shareMany); throws the refusal. */
export async function share(t: Team, id: string): Promise<ShareResult> {
  const r = await shareMany(t, [id]);
  if (r.refused.length) throw r.refused[0].error;
  return r.shared[0];
}

/** `team unshare ID` (owner only): the team's copy is deleted; every replica becomes a local copy at its next sync. */
export async function unshare(t: Team, id: string): Promise<{ session: string }> {
  await t.sql.begin(async (tx) => {
    const row = await lockRow(tx, id);
    if (!row) fail('TM003', `session ${id} is not shared`, { session: id });
    if (row.owner !== t.cfg.machine) fail('WS105', `session ${id} owned by ${row.owner ?? 'nobody'} since ${row.since}: only its owner unshares it`, { session: id, owner: row.owner, since: row.since });
    await tx`delete from baton.sessions where id = ${id}`;
    await tx`select pg_notify(${CHANNEL}, ${`${id} 0`})`;
  });
  if (t.store.exists(id)) {
    removeMarker(t.store.dir(id));
    exceptFromRules(t.store, id);
  }
  return { session: id };
}

/**
 * `team take ID [--steal]`: pulls everything the team has, then, in one transaction holding
 * the session's row (FOR UPDATE), pulls what came meanwhile and bumps the epoch. Without
 * --steal only a session with no owner is taken (WS105 names the owner otherwise).
 */
export async function take(t: Team, id: string, steal: boolean): Promise<{ session: string; epoch: number; since: string; previous_owner: string | null; pulled: number }> {
  const first = (await t.sql`select id, owner, epoch, since, last_seq, last_h, title, project, workspace from baton.sessions where id = ${id}`).map(toRow)[0];
  if (!first) fail('TM003', `session ${id} is not shared: nothing to take`, { session: id });
  if (first.owner === t.cfg.machine && readMarker(t.store.dir(id))?.epoch === first.epoch) {
    return { session: id, epoch: first.epoch, since: first.since, previous_owner: first.owner, pulled: 0 };
  }
  // Refused before anything is pulled: a refusal leaves the disk as it was.
  if (first.owner !== null && first.owner !== t.cfg.machine && !steal) ownedElsewhere(id, first);
  let pulled = (await pull(t, id, first)).pulled;
  const row = await t.sql.begin(async (tx) => {
    const cur = await lockRow(tx, id);
    if (!cur) fail('TM003', `session ${id} is no longer shared`, { session: id });
    if (cur.owner !== null && cur.owner !== t.cfg.machine && !steal) ownedElsewhere(id, cur);
    pulled += (await pull(t, id, cur, tx)).pulled;
    const [r] = await tx`update baton.sessions set owner = ${t.cfg.machine}, epoch = epoch + 1, since = now() where id = ${id}
      returning id, owner, epoch, since, last_seq, last_h, title, project, workspace`;
    await tx`select pg_notify(${CHANNEL}, ${`${id} ${cur.last_seq}`})`;
    return { row: toRow(r), previous: cur.owner };
  });
  writeMarker(t.store.dir(id), markerFor(t.cfg, row.row));
  endForeignLease(t.store, id);
  await push(t, id);
  return { session: id, epoch: row.row.epoch, since: row.row.since, previous_owner: row.previous, pulled };
}

function ownedElsewhere(id: string, row: SessionRow): never {
  fail('WS105', `session ${id} owned by ${row.owner} since ${row.since}: it must be released by its owner first, or taken with --steal if ${row.owner} is unreachable`, {
    session: id,
    owner: row.owner,
    since: row.since,
    command: `baton team take ${id} --steal`,
  });
}

/** Taking ownership ends every lease held on another machine: lock.released with reason ownership_moved. */
function endForeignLease(store: FsStore, id: string): void {
  let open: Record<string, unknown> | null = null;
  store.events(id, 1, (ev) => {
    if (ev.type === 'lock.acquired') open = (ev.payload.holder as Record<string, unknown>) ?? {};
    else if (ev.type === 'lock.released') open = null;
  });
  const holder = open;
  store.locked(id, () => {
    if (holder) store.appendUnderMutex(id, [{ type: 'lock.released', surface: 'cli', actor: 'system', payload: { holder, reason: 'ownership_moved' } }], { surface: 'cli', instanceId: 'team', actor: 'system' });
    removeLock(store.dir(id));
  });
  if (holder) store.refreshProjections(id);
}

/** `team release ID`: pushes everything, then gives ownership up in the same transaction. */
export async function release(t: Team, id: string): Promise<{ session: string; pushed: number }> {
  const marker = readMarker(t.store.dir(id));
  if (!marker) fail('TM003', `session ${id} is not shared`, { session: id });
  const p = await push(t, id);
  const row = await t.sql.begin(async (tx) => {
    const cur = await lockRow(tx, id);
    if (!cur) fail('TM003', `session ${id} is not shared`, { session: id });
    if (cur.owner !== t.cfg.machine || cur.epoch !== marker.epoch) {
      fail('WS105', `session ${id} owned by ${cur.owner ?? 'nobody'} since ${cur.since}: only its owner releases it`, { session: id, owner: cur.owner, since: cur.since });
    }
    const local = readLocal(t.store, id, Number.MAX_SAFE_INTEGER);
    if (local.lastSeq !== cur.last_seq) fail('WS103', `session ${id} moved on while releasing (local seq ${local.lastSeq}, team ${cur.last_seq}); run it again`, { session: id });
    const [r] = await tx`update baton.sessions set owner = null, since = now() where id = ${id}
      returning id, owner, epoch, since, last_seq, last_h, title, project, workspace`;
    await tx`select pg_notify(${CHANNEL}, ${`${id} ${cur.last_seq}`})`;
    return toRow(r);
  });
  writeMarker(t.store.dir(id), markerFor(t.cfg, row));
  return { session: id, pushed: p?.pushed ?? 0 };
}

/** Files under sessions/<id>/conflicts/ (a former owner's forks kept), for status. */
export function conflictFiles(store: FsStore): { session: string; file: string; events: number }[] {
  return store.ids().flatMap((id) => conflictsOf(store.dir(id)).map((c) => ({ session: id, ...c })));
}
