// The methods of server.md's table, each a few lines over the operation layer (src/ops),
// the store, the pointer publisher and the index API: the same calls the CLI makes, with
// the connection's surface and instance id as the writer. Params arrive already checked
// against src/schemas/protocol.ts; everything else is the store's rules.
import { isAbsolute, resolve } from 'node:path';
import { continuePlan } from '../ops/continue.ts';
import { turnsPage } from '../ops/turns.ts';
import { JSONRPCErrorException } from 'json-rpc-2.0';
import { parseDuration } from '../core/duration.ts';
import { fail } from '../core/errors.ts';
import type { IndexIo } from '../index/api.ts';
import { listSessions, projectList, searchSessions } from '../index/api.ts';
import { decodeListCursor, encodeListCursor } from '../ops/cursor.ts';
import { type PositionCache, type RedactionCache, readPage } from '../ops/events.ts';
import { pointerView } from '../ops/pointer.ts';
import { captureRefOp, listRefs, renderRefs } from '../ops/refs.ts';
import { appendEntry, createSession, existingDir, renewSession } from '../ops/session.ts';
import { releaseShared, resumeShared } from '../ops/team.ts';
import { describeThread, listEpisodes } from '../ops/thread.ts';
import { publishRaw } from '../pointer/publish.ts';
import { DEFAULT_LIST_LIMIT, MAX_PAGE_BYTES, type MethodName } from '../schemas/protocol.ts';
import { LOG_FILE } from '../store/log.ts';
import { archiveSession } from '../store/operations.ts';
import { DEFAULT_TTL } from '../store/refs.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { realDir } from '../store/workspace.ts';
import { type Connection, type Handler, INVALID_PARAMS, REFUSED, RawJson } from './dispatcher.ts';
import type { Subscriptions } from './subscriptions.ts';
import { join } from 'node:path';
import * as fs from 'node:fs';

export interface ServerContext {
  store: FsStore;
  subs: Subscriptions;
  positions: PositionCache;
  redactions: RedactionCache;
  /** thread/resume's workspacePath per session, for this server's lifetime (never written to the session). */
  overrides: Map<string, string>;
  io: IndexIo;
}

const writerOf = (c: Connection): Writer => c.state.writer as Writer;
const leaseOf = (d: string | undefined): number => parseDuration(d ?? '10m');

export const encodeCursor = encodeListCursor;

export function decodeCursor(c: string): { last_touched_at: string; id: string } {
  const k = decodeListCursor(c);
  if (k) return k;
  throw new JSONRPCErrorException('invalid params for thread/list: cursor: not a cursor this server returned', INVALID_PARAMS, { issues: [{ path: 'cursor', message: 'not a cursor' }] });
}

/**
 * A path a client sent: absolute, or USAGE. The server's own directory means nothing to a
 * client, so a relative path is never resolved against it.
 */
function absolutePath(path: string, field: string): string {
  if (!isAbsolute(path)) fail('USAGE', `${field} ${JSON.stringify(path)} is not absolute: send an absolute path (the server does not resolve paths against its own directory)`, { field });
  return path;
}

/** cwd / all of thread/list and search: a real-path workspace, or null for every workspace (the default). */
function workspaceOf(p: { cwd?: string; all?: boolean }): string | null {
  if (p.all && p.cwd !== undefined) fail('USAGE', 'all and cwd cannot be used together');
  return p.cwd === undefined ? null : realDir(resolve(absolutePath(p.cwd, 'cwd')));
}

/** One page of event/replay (also thread/read's includeEvents). */
function replay(ctx: ServerContext, id: string, after: number, maxBytes = MAX_PAGE_BYTES) {
  const path = join(ctx.store.dir(id), LOG_FILE);
  let size = 0;
  try {
    size = fs.statSync(path).size;
  } catch {}
  const from = ctx.positions.before(id, after, size);
  // Verified positions met while skipping are remembered: the next page near them starts there (a jump into a long log).
  const page = readPage(path, from, after, maxBytes, ctx.redactions.of(ctx.store, id), (p) => ctx.positions.remember(id, p));
  if (page.corrupt && page.events.length === 0) {
    fail('WS201', `events log of ${id} is corrupt at seq ${page.corrupt.seq} (${page.corrupt.reason}): run baton session verify ${id}`, { seq: page.corrupt.seq });
  }
  ctx.positions.remember(id, page.next);
  const last = page.events[page.events.length - 1];
  return {
    // The log lines themselves (redacted ones re-encoded): no second encoding of a 1 MiB page.
    events: new RawJson(`[${page.events.map((e) => e.raw ?? JSON.stringify(e.event)).join(',')}]`),
    nextAfter: last ? last.event.seq : after,
    hasMore: page.more,
    ...(page.oversize ? { oversize: true } : {}),
  };
}

interface ItemFilterParams {
  agent?: string;
  role?: string;
  kind?: string;
  file?: string;
  session?: string;
  since?: string;
  until?: string;
}

/** Turns per page when the caller names no limit. */
const DEFAULT_TURNS = 20;

export function methods(ctx: ServerContext): Record<Exclude<MethodName, 'initialize'>, Handler> {
  const { store } = ctx;
  const thread = (id: string) => describeThread(store, id, ctx.overrides.get(id) ?? null);
  return {
    'project/list': () => ({ data: projectList(store.home, ctx.io) }),

    'thread/list': (p: { cwd?: string; all?: boolean; state?: 'active' | 'suspended' | 'archived'; search?: string; cursor?: string; limit?: number }) => {
      const cwd = workspaceOf(p);
      const after = p.cursor !== undefined ? decodeCursor(p.cursor) : undefined;
      const limit = p.limit ?? DEFAULT_LIST_LIMIT;
      let ids: string[] | undefined;
      if (p.search !== undefined) ids = [...new Set(searchSessions(store.home, p.search, { cwd, limit: 10_000 }, ctx.io).hits.map((h) => h.session))];
      const { sessions } = listSessions(store.home, { cwd, state: p.state, limit: limit + 1, after, ids }, ctx.io);
      const data = sessions.slice(0, limit);
      const last = data[data.length - 1];
      return { data, nextCursor: sessions.length > limit && last ? encodeCursor(last) : null };
    },

    'thread/read': (p: { threadId: string; includeEvents?: { after?: number; maxBytes?: number }; includeTurns?: { limit?: number; maxBytes?: number } }) => {
      const id = store.resolve(p.threadId);
      // The index's flags of the log (corrupt line, projection_conflict) ride along for the page's banners.
      const flags = listSessions(store.home, { cwd: null, ids: [id], limit: 1 }, ctx.io).sessions[0];
      const out: Record<string, unknown> = { thread: { ...thread(id), corrupt: flags?.corrupt ?? null, conflict: flags?.conflict ?? null } };
      if (p.includeEvents) out.events = replay(ctx, id, p.includeEvents.after ?? 0, p.includeEvents.maxBytes);
      if (p.includeTurns) out.turns = turnsPage(store, id, { limit: p.includeTurns.limit ?? DEFAULT_TURNS, maxBytes: p.includeTurns.maxBytes ?? MAX_PAGE_BYTES / 2 });
      return out;
    },

    'thread/continue': (p: { threadId: string; in?: string; budget?: number; workspace?: string }) => {
      // What `baton continue --print` gives: the command line and the handoff block; nothing runs, no lease is taken.
      if (p.workspace !== undefined && !isAbsolute(p.workspace)) fail('USAGE', `workspace ${JSON.stringify(p.workspace)} is not absolute`);
      const workspace = p.workspace === undefined ? undefined : existingDir(p.workspace, 'CN002', (abs) => `workspace ${abs} is not a directory`);
      return { plan: continuePlan(store.home, p.threadId, { in: p.in, budget: p.budget, workspace }) };
    },

    'thread/turns/list': (p: { threadId: string; before?: number; limit?: number; maxBytes?: number }) => {
      const id = store.resolve(p.threadId);
      const page = turnsPage(store, id, { before: p.before, limit: p.limit ?? DEFAULT_TURNS, maxBytes: p.maxBytes ?? MAX_PAGE_BYTES / 2 });
      return { data: page.turns, nextBefore: page.nextBefore, totalItems: page.totalItems };
    },

    'thread/start': (p: { title: string; cwd: string; taskId?: string; allow?: string[]; id?: string; lease?: string }, c) => {
      const cwd = existingDir(absolutePath(p.cwd, 'cwd'), 'USAGE', (abs) => `cwd ${abs} is not a directory`);
      const r = createSession(store, { title: p.title, id: p.id, taskId: p.taskId, allowedRuntimes: p.allow, cwd, leaseMs: leaseOf(p.lease), writer: writerOf(c) });
      return { thread: thread(r.id) };
    },

    'thread/resume': async (p: { threadId: string; workspacePath?: string; steal?: boolean; lease?: string }, c) => {
      const id = store.resolve(p.threadId);
      const leaseMs = leaseOf(p.lease);
      const workspace = p.workspacePath !== undefined ? existingDir(absolutePath(p.workspacePath, 'workspacePath'), 'WS004', (abs) => `workspacePath ${abs} does not exist or is not a directory`) : undefined;
      // Team mode (docs/team.md, src/ops/team.ts): a shared session another machine owned is taken first (never stolen).
      const r = await resumeShared(store, id, writerOf(c), { leaseMs, steal: !!p.steal, workspace });
      if (workspace) ctx.overrides.set(id, workspace);
      const team = r.team ? { team: { epoch: r.team.epoch, previousOwner: r.team.previous_owner, pulled: r.team.pulled } } : {};
      return { thread: thread(id), context: r.context, fromSeq: r.from_seq, lastSeq: r.last_seq, leaseUntil: r.lease_until ?? null, workspace: ctx.overrides.get(id) ?? r.workspace ?? null, ...team };
    },

    'thread/release': async (p: { threadId: string }, c) => {
      // Team mode: on a shared session owned here, the lease, then ownership (everything pushed first).
      const r = await releaseShared(store, store.resolve(p.threadId), writerOf(c));
      return { threadId: r.id, seq: r.seq, ...(r.team ? { team: r.team } : {}) };
    },

    'thread/renew': (p: { threadId: string; lease?: string }, c) => {
      const leaseMs = leaseOf(p.lease);
      const r = renewSession(store, store.resolve(p.threadId), writerOf(c), leaseMs);
      return { threadId: r.id, leaseUntil: r.lease_until, seq: r.seq };
    },

    'thread/archive': (p: { threadId: string; retroTemplate?: string }, c) => {
      const id = store.resolve(p.threadId);
      const r = archiveSession(store, id, writerOf(c), { template: p.retroTemplate });
      return { threadId: id, seq: r.event.seq, retrospective: r.retrospective };
    },

    'context/append': (p: { threadId: string; text: string; type?: string; tags?: string[]; actor?: 'user' | 'agent' | 'system' }, c) => {
      const ev = appendEntry(store, store.resolve(p.threadId), writerOf(c), { text: p.text, type: p.type, tags: p.tags, actor: p.actor });
      return { event: ev };
    },

    'event/replay': (p: { threadId: string; after: number; maxBytes?: number }) => replay(ctx, store.resolve(p.threadId), p.after, p.maxBytes),

    'event/subscribe': (p: { threadId: string; after?: number }, c) => ctx.subs.subscribe(c, store.resolve(p.threadId), p.after),

    'event/unsubscribe': (p: { subscriptionId: string }, c) => {
      if (!ctx.subs.unsubscribe(p.subscriptionId, c)) fail('UNKNOWN_SUBSCRIPTION', `no subscription ${p.subscriptionId} on this connection`, { subscriptionId: p.subscriptionId });
      return {};
    },

    'pointer/get': (p: { threadId: string }) => pointerView(store, store.resolve(p.threadId)),

    'pointer/publish': (p: unknown, c) => {
      // The publisher's own parser judges the request (its receipts are pointer.md's), from the JSON the client sent.
      const receipt = publishRaw(store, Buffer.from(JSON.stringify(p ?? null) ?? 'null'), { writer: writerOf(c) });
      if (receipt.ok) return receipt;
      const message = 'message' in receipt ? receipt.message : `current generation ${receipt.current_generation}, revision ${receipt.current_revision}`;
      throw new JSONRPCErrorException(message, REFUSED, { code: receipt.error, message, details: { receipt } });
    },

    'ref/capture': (p: { from: string; into: string; maxBytes?: number; maxLines?: number; ttl?: string; body?: string }, c) => {
      const ttlMs = parseDuration(p.ttl ?? DEFAULT_TTL);
      return captureRefOp(store, { from: p.from, into: p.into, ttlMs, bounds: { maxBytes: p.maxBytes ?? 0, maxLines: p.maxLines ?? 0 }, body: p.body ?? null, writer: writerOf(c) }).json;
    },

    'ref/list': (p: { threadId: string }) => listRefs(store, store.resolve(p.threadId)).json,

    'ref/render': (p: { threadId: string; digest?: string }) => renderRefs(store, store.resolve(p.threadId), p.digest),

    'episode/list': (p: { threadId: string }) => {
      const id = store.resolve(p.threadId);
      return { threadId: id, data: listEpisodes(store, id) };
    },

    search: (p: { query: string; cwd?: string; all?: boolean; type?: string; limit?: number } & ItemFilterParams) => {
      const cwd = p.session !== undefined && p.cwd === undefined ? null : workspaceOf(p);
      const session = p.session !== undefined ? store.resolve(p.session) : undefined;
      const filter = { cwd, type: p.type, limit: p.limit ?? 20, agent: p.agent, role: p.role, kind: p.kind, file: p.file, session, since: p.since, until: p.until };
      return { data: searchSessions(store.home, p.query, filter, ctx.io).hits };
    },
  };
}
