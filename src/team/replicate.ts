// The replicator: ships chained events between this machine's store and the team's copy in
// PostgreSQL (docs/team.md). Source of truth: each machine's local log for what it wrote;
// PostgreSQL for ownership (owner, epoch) and the team-wide history. Who writes the team's
// copy: only the owner at the current epoch (checked under FOR UPDATE in the same
// transaction as the insert). What a crash leaves: a push is one transaction (all or
// nothing, rerun pushes from the team's last seq); a pull appends verified batches under the
// session mutex (rerun pulls from the local last seq). Nothing is acknowledged twice.
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { BatonError, fail } from '../core/errors.ts';
import { checkLine } from '../core/events.ts';
import { removeLock } from '../store/lease.ts';
import { type OwnershipMarker, conflictsOf, readMarker, removeMarker, writeMarker } from '../store/replica.ts';
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

/** The local log as (seq -> line) from `fromSeq` on, and the h of every event (the chain to compare with the team's). */
function localLines(store: FsStore, id: string, fromSeq: number): { lines: string[]; hs: string[]; lastSeq: number; lastH: string } {
  const lines: string[] = [];
  const hs: string[] = [''];
  let lastSeq = 0;
  let lastH = '';
  if (store.exists(id)) {
    const scan = store.events(id, 1, (ev, raw) => {
      hs[ev.seq] = ev.h;
      if (ev.seq >= fromSeq) lines.push(raw);
    });
    lastSeq = scan.lastSeq;
    lastH = scan.lastH;
  }
  return { lines, hs, lastSeq, lastH };
}

/** What a list shows of a session: never a local absolute path (the workspace's folder name only). */
function describe(store: FsStore, id: string): { title: string; project: string | null; workspace: string | null } {
  const { view } = store.view(id);
  const ws = view.workspace;
  return { title: view.title, project: ws?.git_root ? basename(ws.git_root) : null, workspace: ws?.cwd ? basename(ws.cwd) : null };
}

function markerFor(cfg: TeamConfig, row: SessionRow): OwnershipMarker {
  return { machine: cfg.machine, owner: row.owner, epoch: row.epoch, since: row.since };
}

export interface PushResult {
  session: string;
  pushed: number;
  last_seq: number;
}

/**
 * Pushes this machine's events after the team's last seq, as the owner at its epoch, in one
 * transaction. Returns null when this machine is not (or no longer) the owner.
 */
export async function push(t: Team, id: string): Promise<PushResult | null> {
  const dir = t.store.dir(id);
  const marker = readMarker(dir);
  if (!marker || marker.owner !== t.cfg.machine) return null;
  return t.sql.begin(async (tx) => {
    const row = await lockRow(tx, id);
    if (!row || row.owner !== t.cfg.machine || row.epoch !== marker.epoch) return null;
    const local = localLines(t.store, id, row.last_seq + 1);
    if (local.lastSeq < row.last_seq || (row.last_seq > 0 && local.hs[row.last_seq] !== row.last_h)) {
      fail('WS203', `team history diverges from the local log of ${id} at seq ${row.last_seq}: the team's copy is not a prefix of this owner's log; nothing pushed`, {
        session: id,
        seq: row.last_seq,
      });
    }
    let seq = row.last_seq;
    for (let i = 0; i < local.lines.length; i += BATCH) {
      const rows = local.lines.slice(i, i + BATCH).map((line) => {
        seq++;
        return { session: id, seq, h: local.hs[seq], line: Buffer.from(line, 'utf8'), epoch: row.epoch, origin: t.cfg.machine };
      });
      await tx`insert into baton.events ${tx(rows, 'session', 'seq', 'h', 'line', 'epoch', 'origin')}`;
    }
    if (seq === row.last_seq) return { session: id, pushed: 0, last_seq: seq };
    const d = describe(t.store, id);
    await tx`update baton.sessions set last_seq = ${seq}, last_h = ${local.hs[seq]}, title = ${d.title} where id = ${id}`;
    await pushPointer(tx, t.store, id);
    await tx`select pg_notify(${CHANNEL}, ${`${id} ${seq}`})`;
    return { session: id, pushed: seq - row.last_seq, last_seq: seq };
  }) as Promise<PushResult | null>;
}

/** The owner's state.json (the task pointer), when the session has one, as the team's current pointer. */
async function pushPointer(tx: Tx, store: FsStore, id: string): Promise<void> {
  let state: unknown;
  try {
    state = JSON.parse(fs.readFileSync(join(store.dir(id), 'state.json'), 'utf8'));
  } catch {
    return;
  }
  await tx`insert into baton.pointers (session, state) values (${id}, ${tx.json(state as never)})
    on conflict (session) do update set state = excluded.state, updated_at = now()`;
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
  let local = localLines(t.store, id, Number.MAX_SAFE_INTEGER);
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
    local = localLines(t.store, id, Number.MAX_SAFE_INTEGER);
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
  for (const row of rows) {
    if (only && !only.has(row.id)) continue;
    try {
      const marker = t.store.exists(row.id) ? readMarker(t.store.dir(row.id)) : null;
      if (row.owner === t.cfg.machine && marker?.owner === t.cfg.machine && marker.epoch === row.epoch) {
        const p = await push(t, row.id);
        if (p?.pushed) report.pushed.push(p);
      } else {
        const p = await pull(t, row.id, row);
        if (p.pulled || p.conflict) report.pulled.push(p);
      }
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
  for (const id of dueByRules(t.store, cfg)) {
    if (only && !only.has(id)) continue;
    try {
      await share(t, id);
      report.shared.push(id);
    } catch (e) {
      if (!(e instanceof BatonError)) throw e;
      report.refused.push({ session: id, code: e.code, message: e.message });
    }
  }
}

/** `team share ID`: the session becomes the team's, owned by this machine at epoch 1, and is pushed. */
export async function share(t: Team, id: string): Promise<{ session: string; epoch: number; pushed: number }> {
  const d = describe(t.store, id);
  const row = await t.sql.begin(async (tx) => {
    const rows = await tx`insert into baton.sessions (id, owner, epoch, since, title, project, workspace, shared_by)
      values (${id}, ${t.cfg.machine}, 1, now(), ${d.title}, ${d.project}, ${d.workspace}, ${t.cfg.machine})
      on conflict (id) do nothing returning id, owner, epoch, since, last_seq, last_h, title, project, workspace`;
    return rows.length ? toRow(rows[0]) : await lockRow(tx, id);
  });
  if (!row) fail('INTERNAL', `sharing ${id} left no row`);
  const marker = readMarker(t.store.dir(id));
  if (row.owner !== t.cfg.machine || (marker && marker.epoch !== row.epoch)) {
    fail('WS105', `session ${id} is already shared and owned by ${row.owner ?? 'nobody'} since ${row.since}; sync to replicate it, or baton team take ${id}`, {
      session: id,
      owner: row.owner,
      since: row.since,
      command: `baton team take ${id}`,
    });
  }
  writeMarker(t.store.dir(id), markerFor(t.cfg, row));
  const p = await push(t, id);
  return { session: id, epoch: row.epoch, pushed: p?.pushed ?? 0 };
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
    const local = localLines(t.store, id, Number.MAX_SAFE_INTEGER);
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
