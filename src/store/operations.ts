// Session operations above the log: artifacts, archive and its retrospective, verify,
// redact, prune. The CLI (and later the servers) call these; they hold the rules.
// Invariant: every change is acknowledged by its event; files an event names are made
// durable before the event (artifact add) or removed after it (artifact rm).
import { type PatternTarget, matchWithDeadline } from './pattern-deadline.ts';
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { fail } from '../core/errors.ts';
import type { StoredEvent } from '../core/events.ts';
import { createHash } from 'node:crypto';
import type { SessionView } from '../core/session.ts';
import { readInputBounded } from './bounded-read.ts';
import { FILE_MODE, ensureDir, fsyncDir, writeFileAtomic } from './fsutil.ts';
import { heldByGoneServer, isValid, readLock } from './lease.ts';
import { noteSessionChanged } from './feed.ts';
import { LOG_FILE, type ScanResult, scanLog } from './log.ts';
import { contextMdSeq, pointerSummary, readManifest } from './projections.ts';
import { type EpisodeSummary, fillTemplate, loadTemplate, retrospectiveParts } from './retro-templates.ts';
import type { FsStore, Writer } from './store.ts';

/** Artifacts can be large: node:crypto here (the CLI), never on the hook path. */
const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The largest artifact `artifact add` copies in (docs/cli.md, "Input limits"); it is read whole to hash it. */
export const ARTIFACT_MAX_BYTES = 64 * 1024 * 1024;

/** A plain artifact file name (also the rule for artifacts and contexts an import copies in). */
export const ARTIFACT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._ -]{0,199}$/;

/** A plain file name of a session's artifacts/ (or contexts/) folder: no separator, no `..`. */
export const isArtifactName = (name: string): boolean => ARTIFACT_NAME_RE.test(name) && !name.includes('..');

function checkArtifactName(name: string): string {
  if (!isArtifactName(name)) {
    fail('USAGE', `invalid artifact name ${JSON.stringify(name)}: a plain file name (letters, digits, . _ - and spaces)`);
  }
  return name;
}

export function addArtifact(store: FsStore, id: string, file: string, writer: Writer, as?: string): { event: StoredEvent | null; name: string; sha256: string; unchanged: boolean } {
  const name = checkArtifactName(as ?? basename(file));
  const data = readInputBounded(file, ARTIFACT_MAX_BYTES);
  const sha = sha256Hex(data);
  const dir = join(store.dir(id), 'artifacts');
  const target = join(dir, name);
  let old: string | null = null;
  try {
    old = sha256Hex(fs.readFileSync(target));
  } catch {}
  const res = store.locked(id, () => {
    // Refuse before touching artifacts/: a refused add changes nothing.
    store.precheckUnderMutex(id, ['artifact.added'], writer);
    const payload = old ? { path: name, sha256_old: old, sha256_new: sha } : { path: name, sha256: sha };
    if (old === sha) return { event: null, name, sha256: sha, unchanged: true };
    ensureDir(dir);
    const before = old ? fs.readFileSync(target) : null;
    writeFileAtomic(target, data, { durable: true });
    try {
      const [ev] = store.appendUnderMutex(id, [{ type: old ? 'artifact.updated' : 'artifact.added', surface: writer.surface, actor: writer.actor, payload }], writer);
      return { event: ev, name, sha256: sha, unchanged: false };
    } catch (e) {
      if (before) writeFileAtomic(target, before, { durable: true });
      else fs.rmSync(target, { force: true });
      throw e;
    }
  });
  if (res.event) store.afterAppend(id, [res.event]);
  return res;
}

export function removeArtifact(store: FsStore, id: string, name: string, writer: Writer): StoredEvent {
  checkArtifactName(name);
  const target = join(store.dir(id), 'artifacts', name);
  const { view } = store.view(id);
  if (!view.artifacts.has(name)) fail('USAGE', `session ${id} has no artifact ${JSON.stringify(name)}`, { artifacts: [...view.artifacts.keys()] });
  const [ev] = store.append(id, { type: 'artifact.removed', surface: writer.surface, actor: writer.actor, payload: { path: name } }, writer);
  fs.rmSync(target, { force: true });
  fsyncDir(join(store.dir(id), 'artifacts'));
  return ev;
}

/** Renders retrospective.md from a template (retro-templates.ts) and the session's parts. */
export function renderRetrospective(v: SessionView, dir: string, templateText: string, now: Date, episodes: EpisodeSummary[]): string {
  return fillTemplate(templateText, retrospectiveParts(v, pointerSummary(dir), now, episodes));
}

/** Archives a session: no valid lease may be held (WS101); writes retrospective.md, appends session.archived. */
export function archiveSession(store: FsStore, id: string, writer: Writer, opts: { template?: string; to?: string; force?: boolean } = {}): { event: StoredEvent; retrospective: string; target_path?: string } {
  // An unknown template (WS402) is refused before anything is read or written.
  const template = loadTemplate(store.home, opts.template ?? 'default');
  const dir = store.writeDir(id);
  const now = store.clock();
  const lock = readLock(dir);
  if (lock && isValid(lock, now.getTime())) {
    fail('WS101', `session ${id} is leased by ${lock.holder.instance_id}: release it first (baton session release ${id})`, { holder: lock.holder, lease_until: lock.lease.lease_until });
  }
  const { view, scan } = store.view(id);
  if (scan.corrupt) fail('WS201', `events log of ${id} is corrupt at line ${scan.corrupt.line}`, { line: scan.corrupt.line });
  if (view.archived) fail('WS002', `session ${id} is archived: it is read-only`);
  let target: string | undefined;
  if (opts.to) {
    target = opts.to;
    if (fs.existsSync(target) && !opts.force) fail('WS401', `archive target ${target} exists: rename it or pass --force`, { target });
  }
  const episodes: EpisodeSummary[] = [];
  store.events(id, 1, (ev) => {
    if (ev.type === 'episode.closed') {
      const p = ev.payload as Record<string, unknown>;
      episodes.push({ episode: String(p.episode), outcome: String(p.outcome), reason: String(p.reason), duration_ms: Number(p.duration_ms) || 0, prompts: Number(p.prompts) || 0 });
    }
  });
  const retro = renderRetrospective(view, dir, template.text, now, episodes);
  const retroPath = join(dir, 'retrospective.md');
  writeFileAtomic(retroPath, retro, { durable: true });
  const payload: Record<string, unknown> = { retrospective: 'retrospective.md' };
  if (target) payload.target_path = target;
  const [event] = store.append(id, { type: 'session.archived', surface: writer.surface, actor: writer.actor, payload }, writer);
  store.refreshProjections(id);
  if (target) copyOut(dir, target, !!opts.force);
  return { event, retrospective: retroPath, target_path: target };
}

const NOT_EXPORTED = new Set(['lock.json', '.mutex', '.verified', 'contexts']);

function copyOut(dir: string, target: string, force: boolean): void {
  if (force) fs.rmSync(target, { recursive: true, force: true });
  ensureDir(target, { followLink: true });
  for (const name of fs.readdirSync(dir)) {
    if (NOT_EXPORTED.has(name) || name.startsWith('.')) continue;
    fs.cpSync(join(dir, name), join(target, name), { recursive: true });
  }
}

export interface VerifyReport {
  session: string;
  ok: boolean;
  events: number;
  last_seq: number;
  torn: ScanResult['torn'];
  corrupt: ScanResult['corrupt'];
  projections: { manifest: 'fresh' | 'behind' | 'missing'; context: 'fresh' | 'behind' | 'missing' };
}

/** Recomputes seq, chain, JSON validity and projection freshness; read-only. */
export function verifySession(store: FsStore, id: string): VerifyReport {
  const dir = store.dir(id);
  let events = 0;
  const scan = scanLog(join(dir, LOG_FILE), () => events++);
  const m = readManifest(dir);
  const cseq = contextMdSeq(dir);
  const fresh = (seq: number | null | undefined): 'fresh' | 'behind' | 'missing' => (seq == null ? 'missing' : seq >= scan.lastSeq ? 'fresh' : 'behind');
  return {
    session: id,
    ok: !scan.corrupt && !scan.torn,
    events,
    last_seq: scan.lastSeq,
    torn: scan.torn,
    corrupt: scan.corrupt,
    projections: { manifest: fresh(m?.status.last_event_seq), context: fresh(cseq) },
  };
}

/** `session redact`: appends context.rewritten naming the seqs whose payload matches. Needs the lease. */
/** How long a user's pattern may run over a session's events by default (`--timeout`). */
export const REDACT_DEADLINE_MS = 5000;

/**
 * `session redact`: the seqs whose strings match the user's pattern get a `context.rewritten`
 * naming them. The pattern runs in a worker with a deadline (pattern-deadline.ts): past it,
 * REDACT_TIMEOUT and nothing is written.
 */
export async function redactSession(store: FsStore, id: string, pattern: string, writer: Writer, deadlineMs = REDACT_DEADLINE_MS): Promise<{ event: StoredEvent | null; seqs: number[] }> {
  try {
    new RegExp(pattern);
  } catch (e) {
    fail('USAGE', `invalid pattern: ${(e as Error).message}`);
  }
  const targets: PatternTarget[] = [];
  store.events(id, 1, (ev) => {
    if (ev.type === 'context.rewritten') return;
    const strings: string[] = [];
    collectStrings(ev.payload, strings);
    targets.push({ seq: ev.seq, strings });
  });
  const seqs = await matchWithDeadline(pattern, targets, deadlineMs);
  if (seqs.length === 0) return { event: null, seqs };
  const [event] = store.append(
    id,
    { type: 'context.rewritten', surface: writer.surface, actor: writer.actor, payload: { prev_seq: seqs[seqs.length - 1], summary: `redacted matches of a pattern in ${seqs.length} event(s)`, redacts: seqs, pattern } },
    writer,
  );
  store.refreshProjections(id);
  return { event, seqs };
}

function collectStrings(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) collectStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) collectStrings(x, out);
}

/** Suspended sessions untouched for olderThanMs; deleted only with apply. */
export function pruneSessions(store: FsStore, olderThanMs: number, apply: boolean): { id: string; last_touched_at: string; deleted: boolean }[] {
  const now = store.clock().getTime();
  const out: { id: string; last_touched_at: string; deleted: boolean }[] = [];
  for (const id of store.ids()) {
    const dir = store.dir(id);
    const m = readManifest(dir) ?? store.refreshProjections(id);
    const state = store.lifecycle(id, m.status.state === 'archived');
    if (state !== 'suspended') continue;
    let touched = Date.parse(m.status.last_touched_at);
    try {
      touched = Math.max(touched || 0, fs.statSync(join(dir, LOG_FILE)).mtimeMs);
    } catch {}
    if (now - touched < olderThanMs) continue;
    let deleted = false;
    if (apply) {
      store.locked(id, () => {
        const lock = readLock(dir);
        if (lock && isValid(lock, store.clock().getTime())) return;
        fs.rmSync(dir, { recursive: true, force: true });
        deleted = true;
      });
    }
    out.push({ id, last_touched_at: m.status.last_touched_at, deleted });
  }
  return out;
}

/**
 * Deletes a session's folder for good, under its mutex: refused (WS101, nothing removed) while
 * another surface holds a valid lease on it — one the caller holds, or an expired one, goes
 * with the folder. The index forgets it at its next catch-up (the change feed names it).
 */
export function deleteSession(store: FsStore, id: string, writer: Writer): void {
  const dir = store.dir(id);
  if (!store.exists(id)) fail('WS001', `session ${id} not found`, { session: id });
  store.locked(id, () => {
    const lock = readLock(dir);
    if (lock && lock.holder.instance_id !== writer.instanceId && isValid(lock, store.clock().getTime()) && !heldByGoneServer(lock, store.home)) {
      fail('WS101', `session ${id} is leased by ${lock.holder.instance_id} (${lock.holder.surface}): it is released there first, or once the lease ends (${lock.lease.lease_until})`, {
        holder: lock.holder,
        lease_until: lock.lease.lease_until,
        command: `baton session delete ${id} --yes`,
      });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  noteSessionChanged(store.home, id);
}

export { FILE_MODE };
