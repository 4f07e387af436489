// The filesystem store: the one API every surface (CLI, hooks, later the servers) calls.
// Source of truth: each session's events.jsonl. Who writes: this module only, under the
// per-session mutex. What a crash leaves: a torn log tail (quarantined by the next writer),
// stale projections (rebuilt by the next reader), a lock.json that expires by itself.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { errnoError, fail } from '../core/errors.ts';
import { type Actor, type EventInput, type StoredEvent, SURFACE_KINDS, checkEventType, isSurface, needsLease, surfaceKind } from '../core/events.ts';
import { hostName, nodeOs } from '../core/host.ts';
import { checkSessionId, generatedId } from '../core/ids.ts';
import { redactText, redactValue } from '../core/redact.ts';
import { type SessionView, type Workspace, emptyView, foldEvent } from '../core/session.ts';
import { type Clock, isoMillis, systemClock } from '../core/time.ts';
import { noteSessionChanged } from './feed.ts';
import { DIR_MODE, ensureDir, refuseLink, sweepStaleTemps, writeInPlace } from './fsutil.ts';
import { dropFd } from './heldfd.ts';
import { claimHome } from './home.ts';
import { DEFAULT_LEASE_MS, type Holder, type LockFile, createLock, heldByGoneServer, isValid, readLock, removeLock, replaceLock } from './lease.ts';
import { LOG_FILE, type ScanResult, type TailState, appendLocked, appendVerifiedLines, forkAside, quarantineTail, readFirstEvent, scanLog, verifiedTail } from './log.ts';
import { HOST_TAG, pidAlive, withMutex } from './mutex.ts';
import { checkOwnership } from './replica.ts';
import { type Manifest, manifestFromView, patchManifestAfterAppend, readManifest, writeContextMd, writeManifest } from './projections.ts';

export type LifecycleState = 'active' | 'suspended' | 'archived';

/** Who is writing: the surface, its stable instance id, and the actor. */
export interface Writer {
  surface: string;
  instanceId: string;
  actor: Actor;
}

export function cliInstanceId(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BATON_INSTANCE) return env.BATON_INSTANCE;
  let user = env.USER || '';
  try {
    user ||= nodeOs().userInfo().username;
  } catch {}
  return `cli@${user || 'user'}@${hostName()}`;
}

export function cliWriter(env: NodeJS.ProcessEnv = process.env): Writer {
  return { surface: 'cli', instanceId: cliInstanceId(env), actor: 'user' };
}

export interface CreateOptions {
  title: string;
  id?: string;
  taskId?: string;
  parentSession?: string;
  allowedRuntimes?: string[];
  workspace: Workspace;
  writer: Writer;
  /** Take the lease at creation (the CLI does; hooks don't). */
  leaseMs?: number | null;
  createdBy?: string;
  /** When the session began, for one recorded after the fact (history import): session.created's `at`. */
  at?: string;
}

export interface StoreOptions {
  clock?: Clock;
  random?: () => number;
  /**
   * Rebuild context.md after every append (the CLI does: a person may read it next). Off on
   * the hook path, where only manifest.json is patched and context.md is rebuilt by the next
   * reader (WS202).
   */
  contextOnAppend?: boolean;
}

export const DEFAULT_ALLOWED = [...SURFACE_KINDS];

/** The name prefix of a staged session's hidden folder in `sessions/` (stageSession). */
export const STAGE_PREFIX = '.new.';

/** RFC 3339 timestamps have four-digit years: no lease may end later. */
const LAST_INSTANT = Date.UTC(10000, 0, 1);

interface Rider {
  inputs: EventInput[];
  onStored?: (events: StoredEvent[]) => void;
}

export class FsStore {
  readonly home: string;
  readonly clock: Clock;
  readonly random: () => number;
  readonly contextOnAppend: boolean;
  /** Events waiting to ride along with this process's next append to a session (rideAlong). */
  private readonly riders = new Map<string, Rider[]>();
  /** Everything the last append of a session wrote, riders included, for afterAppend. */
  private readonly lastBatch = new Map<string, StoredEvent[]>();
  /** The seq the manifest was patched to under the mutex, for afterAppend. */
  private readonly manifestAt = new Map<string, number>();

  constructor(home: string, opts: StoreOptions = {}) {
    this.home = home;
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.contextOnAppend = opts.contextOnAppend ?? false;
  }

  get sessionsDir(): string {
    return join(this.home, 'sessions');
  }

  /** Session folders by id, joined once (an append asks several times). */
  private readonly dirs = new Map<string, string>();

  dir(id: string): string {
    let d = this.dirs.get(id);
    if (d === undefined) {
      d = join(this.sessionsDir, id);
      if (this.dirs.size < 4096) this.dirs.set(id, d);
    }
    return d;
  }

  /** A session exists when its log holds session.created. */
  exists(id: string): boolean {
    try {
      return fs.statSync(join(this.dir(id), LOG_FILE)).size > 0;
    } catch {
      return false;
    }
  }

  ids(): string[] {
    try {
      return fs.readdirSync(this.sessionsDir).filter((n) => !n.startsWith('.') && this.exists(n)).sort();
    } catch {
      return [];
    }
  }

  /** An exact id, else an unambiguous prefix; WS001 with the nearest ids otherwise. */
  resolve(idOrPrefix: string): string {
    if (typeof idOrPrefix !== 'string' || idOrPrefix === '' || idOrPrefix.includes('/') || idOrPrefix.includes('\\') || idOrPrefix.includes('\0')) {
      checkSessionId(idOrPrefix);
    }
    if (this.exists(idOrPrefix)) return idOrPrefix;
    const all = this.ids();
    const matches = all.filter((x) => x.startsWith(idOrPrefix));
    if (matches.length === 1) return matches[0];
    if (matches.length > 1) {
      fail('WS001', `session prefix ${JSON.stringify(idOrPrefix)} is ambiguous: ${matches.slice(0, 10).join(', ')}`, { candidates: matches.slice(0, 20) });
    }
    const nearest = nearestIds(idOrPrefix, all);
    fail('WS001', `session ${JSON.stringify(idOrPrefix)} not found${nearest.length ? `; nearest: ${nearest.join(', ')}` : ''}`, { nearest });
  }

  private ensureRoot(): void {
    claimHome(this.home);
    ensureDir(this.sessionsDir);
  }

  /** Session folders whose chain inside the store this process has checked for links. */
  private readonly checked = new Set<string>();

  /**
   * A session's folder for a write: `sessions/` and the session folder must be real folders,
   * not links out of the store (WS010). Checked once per process and session (two lstats);
   * the files inside are opened O_NOFOLLOW or replaced by rename.
   */
  writeDir(id: string): string {
    const d = this.dir(id);
    if (this.checked.has(d)) return d;
    refuseLink(this.sessionsDir);
    refuseLink(d);
    if (this.checked.size < 4096) this.checked.add(d);
    return d;
  }

  private now(): Date {
    return this.clock();
  }

  /** Creates a session folder and writes session.created (+ lock.acquired when leaseMs is set). */
  create(opts: CreateOptions): { id: string; events: StoredEvent[] } {
    if (opts.id !== undefined) checkSessionId(opts.id);
    if (opts.parentSession !== undefined) checkSessionId(opts.parentSession);
    if (opts.leaseMs) this.leaseUntil(this.now(), opts.leaseMs);
    this.checkRuntimes(opts.allowedRuntimes);
    this.ensureRoot();
    // The title is redacted in its event like every payload; the id made from it must be too.
    const title = redactText(opts.title);
    let id = opts.id ?? generatedId(title, this.now().getTime());
    for (let attempt = 0; ; attempt++) {
      try {
        fs.mkdirSync(this.dir(id), { mode: DIR_MODE });
        fs.chmodSync(this.dir(id), DIR_MODE);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        if (opts.id !== undefined) {
          if (!this.exists(id)) break; // an empty folder left by a crash during create: reuse it
          fail('WS004', `session ${id} already exists`, { session: id });
        }
        if (attempt > 20) throw e;
        id = generatedId(title, this.now().getTime(), Math.floor(this.random() * 36 ** 4).toString(36).padStart(4, '0'));
      }
    }
    let events: StoredEvent[];
    try {
      events = withMutex(this.writeDir(id), () => {
        const inputs: EventInput[] = [this.createdEvent(opts)];
        if (opts.leaseMs) inputs.push(...this.acquireInputs(id, opts.writer, opts.leaseMs, false));
        return this.appendUnderMutex(id, inputs, opts.writer, { isCreate: true });
      });
    } catch (e) {
      // A create that wrote no session.created leaves no folder behind (nor the lock.json it took).
      if (!this.exists(id) && !fs.lstatSync(this.dir(id), { throwIfNoEntry: false })?.isSymbolicLink()) {
        fs.rmSync(this.dir(id), { recursive: true, force: true });
      }
      throw e;
    }
    this.afterAppend(id, events, true);
    return { id, events };
  }

  private createdEvent(opts: CreateOptions): EventInput {
    const payload: Record<string, unknown> = { title: opts.title };
    if (opts.taskId) payload.task_id = opts.taskId;
    if (opts.parentSession) payload.parent_session = opts.parentSession;
    payload.workspace = opts.workspace;
    payload.allowed_runtimes = opts.allowedRuntimes ?? DEFAULT_ALLOWED;
    payload.created_by = opts.createdBy ?? opts.writer.surface;
    if (opts.at) payload.at = opts.at;
    return { type: 'session.created', surface: opts.writer.surface, actor: opts.writer.actor, payload };
  }

  private checkRuntimes(list?: string[]): void {
    if (!list) return;
    for (const r of list) {
      if (!(SURFACE_KINDS as readonly string[]).includes(r) && !isSurface(r)) {
        fail('USAGE', `unknown runtime ${JSON.stringify(r)}: allowed are ${SURFACE_KINDS.join(', ')}`);
      }
    }
  }

  /**
   * The session a hook names, created when missing (race-free: under the mutex, whoever
   * finds the log empty writes session.created). Returns whether it was created.
   */
  ensure(id: string, opts: Omit<CreateOptions, 'id' | 'leaseMs'>): boolean {
    checkSessionId(id);
    if (this.exists(id)) return false;
    this.ensureRoot();
    ensureDir(this.writeDir(id));
    let created: StoredEvent[] = [];
    withMutex(this.writeDir(id), () => {
      if (this.exists(id)) return;
      created = this.appendUnderMutex(id, [this.createdEvent(opts)], opts.writer, { isCreate: true });
    });
    if (created.length) this.afterAppend(id, created, true);
    return created.length > 0;
  }

  /** The folders a session `ensureWithUnderMutex` may create needs (the home claimed, `sessions/<id>/`), made outside the mutex. */
  prepareSession(id: string): void {
    checkSessionId(id);
    this.ensureRoot();
    ensureDir(this.writeDir(id));
  }

  /**
   * Under the mutex the caller holds: when the session's log is empty, session.created and
   * `inputs` in one append (one write, one fsync: history import makes a session and its first
   * items one durable write); null when the session exists (the caller appends as usual).
   * Projections are the caller's business (afterAppend with full). `sidecar: false` writes no
   * `.verified` (one file fewer for a session likely never appended to again, as an imported
   * one: its next append verifies the chain from the log once).
   */
  ensureWithUnderMutex(id: string, opts: Omit<CreateOptions, 'id' | 'leaseMs'>, inputs: EventInput[], o: { sidecar?: boolean } = {}): StoredEvent[] | null {
    if (this.exists(id)) return null;
    return this.appendUnderMutex(id, [this.createdEvent(opts), ...inputs], opts.writer, { isCreate: true, sidecar: o.sidecar });
  }

  /**
   * A hidden folder `sessions/.new.<host tag>.<pid>.<random>` in which a whole new session is
   * laid out (its log, projections and cursors) before `publishStaged` renames it into place
   * (history import: no `.mutex` made and unlinked for a session nobody else can see yet).
   * No reader takes a dot-folder for a session; a killed writer's is removed by `sweepStaged`.
   */
  stageSession(id: string): string {
    checkSessionId(id);
    this.ensureRoot();
    refuseLink(this.sessionsDir);
    const stage = join(this.sessionsDir, `${STAGE_PREFIX}${HOST_TAG}.${process.pid}.${Math.floor(this.random() * 36 ** 6).toString(36)}`);
    fs.mkdirSync(stage, { mode: DIR_MODE });
    fs.chmodSync(stage, DIR_MODE);
    return stage;
  }

  /**
   * session.created and `inputs` as the first append of a staged session's log (one write;
   * redacted and chained as any append; no `.verified`, as `ensureWithUnderMutex` with
   * `sidecar: false`). No mutex: the folder is this process's own until it is published. Not
   * fsync'd here: `syncStaged` must have finished before `publishStaged`, so the log is durable
   * before anything in the folder (a cursor) can be seen.
   */
  createStaged(stage: string, id: string, opts: Omit<CreateOptions, 'id' | 'leaseMs'>, inputs: EventInput[]): StoredEvent[] {
    const all = [this.createdEvent(opts), ...inputs];
    for (const e of all) checkEventType(e.type);
    const redacted = all.map((e) => (e.preRedacted ? e : { ...e, payload: redactValue(e.payload) }));
    try {
      return appendLocked(stage, id, redacted, isoMillis(this.now()), {
        sidecar: false,
        durable: false,
        check: (tail) => {
          if (tail.lastSeq !== 0) fail('WS004', `session ${id} already has a log in ${stage}`, { session: id });
        },
      });
    } finally {
      dropFd(join(stage, LOG_FILE));
    }
  }

  /**
   * The fsync of a staged session's log, on libuv's thread pool: the import parses the next
   * session meanwhile (docs/adr/0082). Rejects as the append would (WS206 for a full disk).
   */
  async syncStaged(stage: string): Promise<void> {
    const path = join(stage, LOG_FILE);
    let fh: fs.promises.FileHandle | undefined;
    try {
      fh = await fs.promises.open(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      await fh.sync();
    } catch (e) {
      throw errnoError(e, `the append to a new session in ${stage} failed; nothing was written`) ?? e;
    } finally {
      await fh?.close();
    }
  }

  /**
   * Makes a staged session visible (after `syncStaged`): one rename of its folder to `sessions/<id>`. rename(2)
   * refuses a target that is a non-empty folder (ENOTEMPTY/EEXIST) or not a folder (ENOTDIR):
   * whoever made the session meanwhile — or merely holds its mutex, whose `.mutex` lives in that
   * folder — wins, the staged folder is removed and false says so (the caller appends as usual).
   * An empty folder is replaced: nobody holds its mutex and it holds no log, and every writer
   * names its files by path, so one that made it finds this session there (docs/adr/0082).
   */
  publishStaged(stage: string, id: string): boolean {
    try {
      fs.renameSync(stage, this.dir(id));
    } catch (e) {
      fs.rmSync(stage, { recursive: true, force: true });
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'EPERM' || code === 'EACCES') return false;
      throw e;
    }
    noteSessionChanged(this.home, id);
    return true;
  }

  /** Removes the staged folders (stageSession) that writers on this host left when they were killed (one read of `sessions/`). */
  sweepStaged(): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.sessionsDir);
    } catch {
      return;
    }
    const mine = `${STAGE_PREFIX}${HOST_TAG}.`;
    for (const n of names) {
      if (!n.startsWith(mine)) continue;
      const pid = Number(n.slice(mine.length).split('.')[0]);
      if (!(pid > 0) || pid === process.pid || pidAlive(pid)) continue;
      try {
        fs.rmSync(join(this.sessionsDir, n), { recursive: true, force: true });
      } catch {}
    }
  }

  /** Runs fn under the session mutex (pointer CAS, lease operations). */
  locked<T>(id: string, fn: () => T): T {
    return withMutex(this.writeDir(id), fn);
  }

  /**
   * Appends events, checking: archived (WS002), event type (WS204), allowed runtimes (WS302),
   * the lease for content writes (WS100/WS101), and redacting secrets first.
   */
  append(id: string, inputs: EventInput | EventInput[], writer: Writer, opts: { expectedSeq?: number } = {}): StoredEvent[] {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    for (const e of list) checkEventType(e.type);
    const events = withMutex(this.writeDir(id), () => this.appendUnderMutex(id, list, writer, opts));
    this.afterAppend(id, events);
    return events;
  }

  /**
   * Queues lifecycle facts to be written with this process's next append to the session, in
   * the same write and fsync (a hook's prompt.submitted rides with the pointer's DIRTY mark).
   * onStored runs under the mutex once they are written. flushRiders writes what is left.
   */
  rideAlong(id: string, inputs: EventInput[], onStored?: (events: StoredEvent[]) => void): void {
    for (const e of inputs) checkEventType(e.type);
    const list = this.riders.get(id) ?? [];
    list.push({ inputs, onStored });
    this.riders.set(id, list);
  }

  /** Appends the riders still waiting for a session, on their own. */
  flushRiders(id: string, writer: Writer): StoredEvent[] {
    if (!this.riders.get(id)?.length) return [];
    withMutex(this.writeDir(id), () => this.appendUnderMutex(id, [], writer));
    const batch = this.lastBatch.get(id) ?? [];
    this.afterAppend(id, batch);
    return batch;
  }

  /**
   * For callers already holding the mutex (the pointer publisher). Returns the caller's own
   * events; riders waiting for this session go first in the same write. Projections are the
   * caller's business via afterAppend.
   */
  appendUnderMutex(id: string, inputs: EventInput[], writer: Writer, opts: { expectedSeq?: number; isCreate?: boolean; sidecar?: boolean } = {}): StoredEvent[] {
    const nowIso = isoMillis(this.now());
    const riders = opts.isCreate || opts.expectedSeq !== undefined ? [] : (this.riders.get(id) ?? []);
    const all = [...riders.flatMap((r) => r.inputs), ...inputs];
    if (all.length === 0) return [];
    const redacted = all.map((e) => (e.preRedacted ? e : { ...e, payload: redactValue(e.payload) }));
    const stored = appendLocked(this.dir(id), id, redacted, nowIso, {
      expectedSeq: opts.expectedSeq,
      sidecar: opts.sidecar,
      check: (tail) => {
        if (!opts.isCreate && tail.lastSeq === 0) fail('WS001', `session ${id} not found`, { nearest: nearestIds(id, this.ids()) });
        this.checkWrite(id, tail, all, writer);
      },
    });
    this.lastBatch.set(id, stored);
    // The manifest follows the log inside the same mutex hold: racing appenders patching it
    // after their release would find it behind and each rebuild it from the whole log. A batch
    // with a lock.* event waits for afterAppend (release removes lock.json after its event).
    if (!opts.isCreate && !this.contextOnAppend && !stored.some((e) => e.type.startsWith('lock.'))) {
      try {
        if (patchManifestAfterAppend(this.dir(id), stored, (m) => m.status.state)) this.manifestAt.set(id, stored[stored.length - 1].seq);
      } catch {
        // A projection: afterAppend (or the next reader) rebuilds it.
      }
    }
    const seen = this.leaseSeen.get(id);
    if (seen) {
      // Our own append moved the log on; lock.json moved only if a lock.* event says so.
      if (seen.seq === stored[0].seq - 1 && !stored.some((e) => e.type.startsWith('lock.'))) seen.seq = stored[stored.length - 1].seq;
      else this.leaseSeen.delete(id);
    }
    let at = 0;
    if (riders.length) {
      this.riders.delete(id);
      for (const r of riders) {
        const mine = stored.slice(at, at + r.inputs.length);
        at += r.inputs.length;
        try {
          r.onStored?.(mine);
        } catch {
          // A rider's bookkeeping (a cache) never fails the append it rode on.
        }
      }
    }
    return stored.slice(at);
  }

  /** Under the mutex: refuses now what an append of these types would refuse, before any side effect. */
  precheckUnderMutex(id: string, types: string[], writer: Writer): void {
    const tail = verifiedTail(this.dir(id), id, isoMillis(this.now()));
    if (tail.lastSeq === 0) fail('WS001', `session ${id} not found`, { nearest: nearestIds(id, this.ids()) });
    this.checkWrite(id, tail, types.map((type) => ({ type, surface: writer.surface, actor: writer.actor, payload: {} })), writer);
  }

  private checkWrite(id: string, tail: TailState, inputs: EventInput[], writer: Writer): void {
    checkOwnership(this.dir(id), id);
    if (tail.archived) fail('WS002', `session ${id} is archived: it is read-only`, { session: id });
    if (tail.allowed && tail.lastSeq > 0) {
      const kind = surfaceKind(writer.surface);
      if (!tail.allowed.includes(kind) && !tail.allowed.includes(writer.surface)) {
        fail('WS302', `surface ${writer.surface} is not allowed to write session ${id}; allowed: ${tail.allowed.join(', ')}`, {
          allowed_runtimes: tail.allowed,
        });
      }
    }
    if (inputs.some((e) => needsLease(e.type))) this.requireLease(id, writer, tail);
  }

  /**
   * lock.json as this process last read it, and the log's last seq then. Every change to
   * lock.json comes with a lock.* event under the same mutex hold, so while the log is
   * exactly as our own last append left it (tail.own) and that append carried no lock.*
   * event, the file is unchanged and is not read again. Expiry is still checked against now.
   */
  private readonly leaseSeen = new Map<string, { seq: number; lock: LockFile | null }>();

  private requireLease(id: string, writer: Writer, tail: TailState): void {
    const seen = this.leaseSeen.get(id);
    const lock = tail.own && seen?.seq === tail.lastSeq ? seen.lock : readLock(this.dir(id));
    this.leaseSeen.set(id, { seq: tail.lastSeq, lock });
    const now = this.now().getTime();
    if (!lock || !isValid(lock, now)) {
      fail('WS100', `no lease held on ${id}: run baton session resume ${id}`, { command: `baton session resume ${id}` });
    }
    if (lock.holder.instance_id !== writer.instanceId) this.leasedByAnother(id, lock, now);
  }

  /**
   * WS101, naming the command that takes the lease back: `session resume` when the server
   * that held it is gone (it releases such a lease), else `resume --steal` once it ends.
   */
  private leasedByAnother(id: string, lock: LockFile, now: number): never {
    const left = Math.ceil((Date.parse(lock.lease.lease_until) - now) / 1000);
    const details = { holder: lock.holder, lease_until: lock.lease.lease_until, seconds_left: left };
    if (heldByGoneServer(lock, this.home)) {
      const command = `baton session resume ${id}`;
      fail('WS101', `session ${id} is leased by ${lock.holder.instance_id} (${lock.holder.surface}), whose server is no longer running: take it back with ${command}`, { ...details, command });
    }
    const command = `baton session resume ${id} --steal`;
    fail('WS101', `session ${id} is leased by ${lock.holder.instance_id} (${lock.holder.surface}) for ${left}s more: release it there, or take it with ${command} once it ends`, { ...details, command });
  }

  /**
   * Keeps manifest.json in step with the log: already patched under the mutex, or patched
   * now when it was current, or rebuilt.
   */
  afterAppend(id: string, own: StoredEvent[], full = false): void {
    const batch = this.lastBatch.get(id);
    this.lastBatch.delete(id);
    const events = batch && own.length && batch[batch.length - 1].seq === own[own.length - 1].seq ? batch : own;
    if (events.length === 0) return;
    noteSessionChanged(this.home, id);
    try {
      const dir = this.dir(id);
      const patchedTo = this.manifestAt.get(id);
      this.manifestAt.delete(id);
      if (!full && patchedTo === events[events.length - 1].seq) return;
      // The lease can only have changed with a lock.* event: otherwise keep the state (no lock.json read).
      const state = (m: Manifest) => (events.some((e) => e.type.startsWith('lock.')) ? this.lifecycle(id, m.status.state === 'archived') : m.status.state);
      if (full || this.contextOnAppend || !patchManifestAfterAppend(dir, events, state)) this.refreshProjections(id);
    } catch {
      // Projections are rebuildable; a failure here never fails an acknowledged append.
    }
  }

  /**
   * After an append that made the session (ensureWithUnderMutex: `events` are its whole log,
   * from seq 1): manifest.json folded from those events in memory, not from a re-read of the
   * log, and written in place (a new file: no temp file and rename; a torn one is rebuilt by
   * its reader). context.md is left to its next reader (WS202), as on the hook path. Anything
   * else goes to afterAppend's full rebuild. `manifest: false` leaves the manifest to its next
   * reader too (history import: docs/adr/0082).
   */
  afterCreate(id: string, events: StoredEvent[], o: { manifest?: boolean } = {}): void {
    if (events.length === 0 || events[0].seq !== 1 || events[0].type !== 'session.created' || events.some((e) => e.type.startsWith('lock.'))) {
      this.afterAppend(id, events, true);
      return;
    }
    this.lastBatch.delete(id);
    this.manifestAt.delete(id);
    noteSessionChanged(this.home, id);
    if (o.manifest === false) return;
    try {
      const v = emptyView(id);
      for (const e of events) foldEvent(v, e);
      writeInPlace(join(this.dir(id), 'manifest.json'), `${JSON.stringify(manifestFromView(v, this.lifecycle(id, v.archived)), null, 2)}\n`);
    } catch {
      // A projection: the next reader rebuilds it.
    }
  }

  /** Folds the whole log (read-only). */
  view(id: string): { view: SessionView; scan: ScanResult } {
    const v = emptyView(id);
    const scan = scanLog(join(this.dir(id), LOG_FILE), (ev) => foldEvent(v, ev));
    return { view: v, scan };
  }

  /** Streams events with seq >= fromSeq. */
  events(id: string, fromSeq = 1, onEvent?: (ev: StoredEvent, raw: string) => void): ScanResult {
    return scanLog(join(this.dir(id), LOG_FILE), (ev, raw) => {
      if (ev.seq >= fromSeq) onEvent?.(ev, raw);
    });
  }

  readEvents(id: string, fromSeq = 1): StoredEvent[] {
    const out: StoredEvent[] = [];
    this.events(id, fromSeq, (ev) => out.push(ev));
    return out;
  }

  firstEvent(id: string): StoredEvent | null {
    return readFirstEvent(this.dir(id));
  }

  /**
   * The folder a session was made in: its manifest's workspace, else its session.created's (a
   * session history import made has no manifest until a reader builds it: docs/adr/0082).
   */
  workspaceCwd(id: string): string | undefined {
    return readManifest(this.dir(id))?.workspace?.cwd ?? (this.firstEvent(id)?.payload as { workspace?: { cwd?: string } } | undefined)?.workspace?.cwd ?? undefined;
  }

  lock(id: string): LockFile | null {
    return readLock(this.dir(id));
  }

  lifecycle(id: string, archived?: boolean): LifecycleState {
    if (archived) return 'archived';
    const lock = readLock(this.dir(id));
    return lock && isValid(lock, this.now().getTime()) ? 'active' : 'suspended';
  }

  /** Rewrites manifest.json and context.md from the log, and sweeps the temp files killed writers left there. */
  refreshProjections(id: string): Manifest {
    // File ages are on the filesystem's clock, not the store's (a test clock must not sweep a live temp file).
    sweepStaleTemps(this.dir(id), Date.now());
    const { view } = this.view(id);
    const manifest = manifestFromView(view, this.lifecycle(id, view.archived));
    writeManifest(this.dir(id), manifest);
    writeContextMd(this.dir(id), view, manifest.status.state);
    return manifest;
  }

  // --- the writer lease -------------------------------------------------------------

  /** When a lease of leaseMs taken now ends; USAGE for a length that is not a positive whole number of ms or ends past year 9999. */
  private leaseUntil(now: Date, leaseMs: number): string {
    const end = now.getTime() + leaseMs;
    if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0 || !(end < LAST_INSTANT)) {
      fail('USAGE', `invalid lease length: ${leaseMs} ms; a lease is a positive duration ending before the year 10000`, { lease_ms: leaseMs });
    }
    return isoMillis(new Date(end));
  }

  private holderOf(w: Writer): Holder {
    return { surface: w.surface, instance_id: w.instanceId, actor: w.actor };
  }

  /** Decides an acquire under the mutex and writes lock.json; returns the lock.* events to append. */
  private acquireInputs(id: string, writer: Writer, leaseMs: number, steal: boolean): EventInput[] {
    const dir = this.dir(id);
    const now = this.now();
    const holder = this.holderOf(writer);
    const until = this.leaseUntil(now, leaseMs);
    const fresh: LockFile = { holder, lease: { acquired_at: isoMillis(now), lease_until: until, renew_count: 0 } };
    const cur = readLock(dir);
    const ev = (type: string, payload: Record<string, unknown>): EventInput => ({ type, surface: writer.surface, actor: writer.actor, payload });
    if (!cur) {
      if (!createLock(dir, fresh)) fail('WS103', `lost the race for the lease on ${id}; try again`);
      return [ev('lock.acquired', { holder, lease_until: until })];
    }
    const valid = isValid(cur, now.getTime());
    if (cur.holder.instance_id === writer.instanceId) {
      if (valid) {
        const renewed: LockFile = { holder, lease: { ...cur.lease, lease_until: until, renew_count: cur.lease.renew_count + 1 } };
        replaceLock(dir, renewed);
        return [ev('lock.renewed', { lease_until: until })];
      }
      replaceLock(dir, fresh);
      return [ev('lock.acquired', { holder, lease_until: until })];
    }
    if (valid && heldByGoneServer(cur, this.home)) {
      // The server that held it is gone: the lease ends now, whoever asks (docs/store.md).
      replaceLock(dir, fresh);
      return [ev('lock.released', { holder: cur.holder, reason: 'expired' }), ev('lock.acquired', { holder, lease_until: until })];
    }
    if (valid) this.leasedByAnother(id, cur, now.getTime());
    if (!steal) {
      fail('WS102', `the lease on ${id} held by ${cur.holder.instance_id} expired at ${cur.lease.lease_until}; take it with baton session resume ${id} --steal`, {
        holder: cur.holder,
        lease_until: cur.lease.lease_until,
        command: `baton session resume ${id} --steal`,
      });
    }
    replaceLock(dir, fresh);
    return [ev('lock.released', { holder: cur.holder, reason: 'stolen' }), ev('lock.acquired', { holder, lease_until: until })];
  }

  /** Takes (or renews, when ours) the lease, appending lock.* events; `extra` events go in the same write. */
  acquire(id: string, writer: Writer, opts: { leaseMs?: number; steal?: boolean; extra?: (lastSeq: number) => EventInput[] } = {}): StoredEvent[] {
    const dir = this.writeDir(id);
    const events = withMutex(dir, () => {
      this.preflight(id, writer);
      const before = readLock(dir);
      const inputs = this.acquireInputs(id, writer, opts.leaseMs ?? DEFAULT_LEASE_MS, !!opts.steal);
      try {
        const tailSeq = this.lastSeqUnlocked(id);
        return this.appendUnderMutex(id, [...inputs, ...(opts.extra?.(tailSeq) ?? [])], writer);
      } catch (e) {
        // The lease change is only acknowledged with its event: put the old lock back.
        if (before) replaceLock(dir, before);
        else removeLock(dir);
        throw e;
      }
    });
    this.afterAppend(id, events);
    return events;
  }

  renew(id: string, writer: Writer, leaseMs = DEFAULT_LEASE_MS): StoredEvent[] {
    const dir = this.writeDir(id);
    const events = withMutex(dir, () => {
      this.preflight(id, writer);
      const cur = readLock(dir);
      if (!cur) fail('WS100', `no lease held on ${id}: run baton session resume ${id}`, { command: `baton session resume ${id}` });
      if (cur.holder.instance_id !== writer.instanceId) {
        const now = this.now().getTime();
        if (isValid(cur, now)) this.leasedByAnother(id, cur, now);
        fail('WS103', `the lease on ${id} is no longer ours: it expired and belongs to ${cur.holder.instance_id}`, { holder: cur.holder });
      }
      const until = this.leaseUntil(this.now(), leaseMs);
      const before = cur;
      replaceLock(dir, { holder: cur.holder, lease: { ...cur.lease, lease_until: until, renew_count: cur.lease.renew_count + 1 } });
      try {
        return this.appendUnderMutex(id, [{ type: 'lock.renewed', surface: writer.surface, actor: writer.actor, payload: { lease_until: until } }], writer);
      } catch (e) {
        replaceLock(dir, before);
        throw e;
      }
    });
    this.afterAppend(id, events);
    return events;
  }

  release(id: string, writer: Writer): StoredEvent[] {
    const dir = this.writeDir(id);
    const events = withMutex(dir, () => {
      this.preflight(id, writer);
      const cur = readLock(dir);
      if (!cur) fail('WS100', `no lease held on ${id}`, { command: `baton session resume ${id}` });
      const now = this.now().getTime();
      if (cur.holder.instance_id !== writer.instanceId && isValid(cur, now) && !heldByGoneServer(cur, this.home)) this.leasedByAnother(id, cur, now);
      const out = this.appendUnderMutex(id, [{ type: 'lock.released', surface: writer.surface, actor: writer.actor, payload: { reason: cur.holder.instance_id === writer.instanceId ? 'released' : 'expired' } }], writer);
      removeLock(dir);
      return out;
    });
    this.afterAppend(id, events);
    return events;
  }

  private preflight(id: string, _writer: Writer): void {
    if (!this.exists(id)) fail('WS001', `session ${id} not found`, { nearest: nearestIds(id, this.ids()) });
  }

  private lastSeqUnlocked(id: string): number {
    return verifiedTail(this.dir(id), id, isoMillis(this.now())).lastSeq;
  }

  // --- team replication (docs/team.md): the narrow paths the replicator writes through ---

  /**
   * Appends lines pulled from the team's copy, byte for byte (same seq, same h), under the
   * session mutex; each must continue the local chain (WS203 otherwise, nothing written).
   * Creates the session folder for a session first seen here.
   */
  appendPulled(id: string, lines: string[]): { lastSeq: number; lastH: string } {
    checkSessionId(id);
    if (lines.length === 0) return { lastSeq: this.exists(id) ? this.lastSeqUnlocked(id) : 0, lastH: '' };
    this.ensureRoot();
    ensureDir(this.writeDir(id));
    const r = withMutex(this.writeDir(id), () => appendVerifiedLines(this.dir(id), id, lines, isoMillis(this.now())));
    // The projections are the caller's business (a pull refreshes them once, after its last batch).
    noteSessionChanged(this.home, id);
    return r;
  }

  /**
   * Sets the local events after `keepSeq` aside in `conflicts/<name>` and cuts the log back
   * to them (a former owner's fork); returns how many were set aside. Nothing is dropped:
   * the file is written and fsync'd before the log is cut.
   */
  setForkAside(id: string, keepSeq: number, name: string): { moved: number; path: string } {
    const dir = this.writeDir(id);
    const path = join(dir, 'conflicts', name);
    const moved = withMutex(dir, () => forkAside(dir, id, keepSeq, path));
    if (moved) this.afterForeignChange(id);
    return { moved, path };
  }

  /** Rebuilds the projections after replication wrote the log (never fails the caller). */
  afterForeignChange(id: string): void {
    noteSessionChanged(this.home, id);
    try {
      this.refreshProjections(id);
    } catch {
      // Projections are rebuildable by the next reader.
    }
  }

  /** Quarantines a torn tail and rebuilds projections; never drops acknowledged history. */
  repair(id: string): { quarantined: string | null; corrupt: ScanResult['corrupt']; last_seq: number } {
    const dir = this.writeDir(id);
    return withMutex(dir, () => {
      const scan = scanLog(join(dir, LOG_FILE));
      let quarantined: string | null = null;
      if (!scan.corrupt && scan.torn) quarantined = quarantineTail(dir, scan.validBytes, isoMillis(this.now()));
      try {
        fs.unlinkSync(join(dir, '.verified'));
      } catch {}
      if (!scan.corrupt) this.refreshProjections(id);
      return { quarantined, corrupt: scan.corrupt, last_seq: scan.lastSeq };
    });
  }
}

/** Nearest ids for a WS001 message: shared prefix length, then edit distance. */
export function nearestIds(q: string, all: string[], n = 3): string[] {
  const score = (a: string): number => {
    let p = 0;
    while (p < a.length && p < q.length && a[p] === q[p]) p++;
    return p * 2 - Math.abs(a.length - q.length) / 10 + (a.includes(q) ? 3 : 0);
  };
  return all
    .map((id) => ({ id, s: score(id) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s)
    .slice(0, n)
    .map((x) => x.id);
}
