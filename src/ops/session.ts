// The session operations every surface calls (the CLI's `session` verbs, the app server's
// `thread/*` and `context/append`): one function per operation, values in, values or coded
// errors out. The rules stay in the store; these only compose store calls the same way for
// every caller. Nothing here prints, exits or parses flags.
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { type ErrorCode, fail } from '../core/errors.ts';
import type { Actor, StoredEvent } from '../core/events.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { describeWorkspace } from '../store/workspace.ts';

/** A directory given by a caller, resolved to its real path; `code` when it is not a directory. */
export function existingDir(dir: string, code: ErrorCode, message: (abs: string) => string): string {
  const abs = resolve(dir);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) fail(code, message(abs), { workspace: abs });
  return fs.realpathSync(abs);
}

export interface NewSession {
  title: string;
  id?: string;
  taskId?: string;
  parentSession?: string;
  allowedRuntimes?: string[];
  /** The workspace, already checked to be a directory. */
  cwd: string;
  leaseMs: number;
  writer: Writer;
}

/** `session new` / `thread/start`: creates the session and takes its lease. */
export function createSession(store: FsStore, o: NewSession): { id: string; last_seq: number; lease_until: string | null } {
  const { id, events } = store.create({
    title: o.title,
    id: o.id,
    taskId: o.taskId,
    parentSession: o.parentSession,
    allowedRuntimes: o.allowedRuntimes,
    workspace: describeWorkspace(o.cwd),
    writer: o.writer,
    leaseMs: o.leaseMs,
    createdBy: o.writer.surface,
  });
  const lock = store.lock(id);
  return { id, last_seq: events[events.length - 1].seq, lease_until: lock?.lease.lease_until ?? null };
}

export interface Resumed {
  id: string;
  from_seq: number;
  last_seq: number;
  lease_until: string | undefined;
  /** The override when one was given, else the session's workspace origin. */
  workspace: string | undefined;
  context: string;
}

/**
 * `session resume` / `thread/resume`: takes the lease and records session.resumed in the
 * same write. A workspace override (already a checked real path) is recorded in that event
 * only: the session's workspace origin is never rewritten.
 */
export function resumeSession(store: FsStore, id: string, writer: Writer, o: { leaseMs: number; steal: boolean; workspace?: string }): Resumed {
  let fromSeq = 0;
  const events = store.acquire(id, writer, {
    leaseMs: o.leaseMs,
    steal: o.steal,
    extra: (last) => {
      fromSeq = last;
      return [{ type: 'session.resumed', surface: writer.surface, actor: writer.actor, payload: o.workspace ? { from_seq: last, workspace_override: o.workspace } : { from_seq: last } }];
    },
  });
  const manifest = store.refreshProjections(id);
  const context = fs.readFileSync(join(store.dir(id), 'context.md'), 'utf8');
  const lock = store.lock(id);
  return { id, from_seq: fromSeq, last_seq: events[events.length - 1].seq, lease_until: lock?.lease.lease_until, workspace: o.workspace ?? manifest.workspace?.cwd, context };
}

/** `session renew` / `thread/renew`. */
export function renewSession(store: FsStore, id: string, writer: Writer, leaseMs: number): { id: string; lease_until: string; seq: number } {
  const [ev] = store.renew(id, writer, leaseMs);
  return { id, lease_until: ev.payload.lease_until as string, seq: ev.seq };
}

/** `session release` / `thread/release`. */
export function releaseSession(store: FsStore, id: string, writer: Writer): { id: string; seq: number } {
  const [ev] = store.release(id, writer);
  return { id, seq: ev.seq };
}

/** `session append` / `context/append`: one entry (context.appended unless another type is named); needs the lease. */
export function appendEntry(store: FsStore, id: string, writer: Writer, o: { text: string; type?: string; tags?: string[]; actor?: Actor }): StoredEvent {
  if (o.text === '') fail('USAGE', 'the text is empty: nothing appended');
  const payload: Record<string, unknown> = { text: o.text };
  if (o.tags?.length) payload.tags = o.tags;
  const w = { ...writer, actor: o.actor ?? writer.actor };
  const [ev] = store.append(id, { type: o.type ?? 'context.appended', surface: w.surface, actor: w.actor, payload }, w);
  return ev;
}

/** Renames a session: one `session.updated` {title} (a content write: it needs the caller's lease). */
export function renameSession(store: FsStore, id: string, writer: Writer, title: string): StoredEvent {
  if (title.trim() === '') fail('USAGE', 'the title is empty: give the session a name');
  const [ev] = store.append(id, { type: 'session.updated', surface: writer.surface, actor: writer.actor, payload: { title } }, writer);
  return ev;
}
