// baton's MCP tool set (mcp.md): the operations the hooks, the CLI and the app server use,
// as Model Context Protocol tools and resources, one definition for both transports (stdio
// `baton mcp`, Streamable HTTP `POST /mcp` on `baton serve`). Source of truth: the store;
// every tool calls the operation layer (src/ops), the pointer publisher or the index API —
// no rule is decided here. A refusal is an `isError` result carrying baton's code in its
// text and structured content, decided before anything is written; nothing thrown by a
// tool reaches the transport, so bad input never stops the server.
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import * as fs from 'node:fs';
import { McpServer, ResourceTemplate, type CallToolResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { ITEM_KINDS, ITEM_ROLES, TRANSCRIPT_AGENTS } from '../core/transcript.ts';
import { z } from 'zod';
import { parseDuration } from '../core/duration.ts';
import { BatonError, fail } from '../core/errors.ts';
import { redactValue } from '../core/redact.ts';
import { listSessions, searchSessions } from '../index/api.ts';
import { decodeListCursor, encodeListCursor } from '../ops/cursor.ts';
import { START, readPage, redactionsOf } from '../ops/events.ts';
import { pointerView } from '../ops/pointer.ts';
import { captureRefOp, listRefs } from '../ops/refs.ts';
import { appendEntry } from '../ops/session.ts';
import { resumeShared } from '../ops/team.ts';
import { decisionOf, renderPointerBlock } from '../pointer/context.ts';
import { readJournalTail } from '../pointer/journal.ts';
import { publishRaw } from '../pointer/publish.ts';
import { newTaskId, readState } from '../pointer/state.ts';
import { isValid } from '../store/lease.ts';
import { LOG_FILE } from '../store/log.ts';
import { DEFAULT_TTL } from '../store/refs.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { realDir } from '../store/workspace.ts';
import type { TOOL_NAMES } from './names.ts';
import { type SessionSource, resolveSession } from './session.ts';

/** Text a tool returns unless the caller asks for a bigger page (mcp.md: ≤ 16 KiB). */
export const MAX_TEXT_BYTES = 16 * 1024;
/** The largest page session_log hands out when asked (the app server's replay bound). */
export const MAX_LOG_PAGE_BYTES = 1024 * 1024;
const DEFAULT_LOG_BYTES = 12 * 1024;
const DEFAULT_LEASE = '10m';


export interface McpContext {
  store: FsStore;
  writer: Writer;
  sessions: SessionSource;
  version: string;
}

/** The writer of an MCP surface: `BATON_INSTANCE` when set (so a lease taken as that instance is this server's), else one per client program and host. */
export function mcpWriter(clientName: string, env: NodeJS.ProcessEnv = process.env): Writer {
  return { surface: 'mcp', instanceId: env.BATON_INSTANCE || `mcp@${clientName || 'client'}@${hostname()}`, actor: 'agent' };
}

// What a model should do after each refusal: the code's meaning in one line, then the next step.
const NEXT: Record<string, string> = {
  STALE_REVISION: 'The pointer changed since you read it. Call pointer_get, merge your change into its current text, and publish again with the returned generation and revision.',
  STALE_GENERATION: 'The pointer was replaced since you read it. Call pointer_get, merge your change into its current text, and publish again with the returned generation and revision.',
  INVALID_REQUEST: 'The publish request breaks a rule (named in the message and `field`): fix that field and call pointer_publish again.',
  USAGE: 'The arguments are wrong (see the message): fix them and call again.',
  WS001: 'No such session (or the prefix matches several): call session_list to find the id.',
  WS002: 'The session is archived and read-only: write to another session.',
  WS003: 'The session id is malformed: use an id from session_list.',
  WS100: 'Nobody holds the session lease: call context_append again with resume: true to take it, or ask the user to run `baton session resume ID`.',
  WS101: 'Another surface holds the lease (holder and time left in the details): do not write now; tell the user.',
  WS102: 'The lease expired; taking it needs `baton session resume ID --steal` by the user.',
  WS105: 'The session is shared with a team and owned by another machine (named in the details): do not write to it; ask the user to release it there or to run `baton team take ID`.',
  TM002: 'The team database is unreachable, so the shared session cannot be taken now: tell the user (the local store is unaffected).',
  WS103: 'The session was busy: call again.',
  WS201: 'The session log is corrupt: tell the user to run `baton session verify ID`.',
  WS302: 'This session does not allow writes from MCP (allowed runtimes in the details): tell the user.',
  REF_NOT_FOUND: 'No such ref: call ref_list.',
  LOCK_TIMEOUT: 'The session was busy: call pointer_get and publish again.',
  STATE_CORRUPT: "The pointer state is corrupt: tell the user to run `baton pointer show` and repair it; don't publish.",
  WRITE_FAILED: 'The pointer could not be written (cause in the details): tell the user.',
};

export interface Refusal {
  ok: false;
  code: string;
  message: string;
  next: string;
  details?: Record<string, unknown>;
}

export function refusal(code: string, message: string, details?: Record<string, unknown>): CallToolResult {
  const r: Refusal = { ok: false, code, message, next: NEXT[code] ?? 'Tell the user what failed.', ...(details && Object.keys(details).length ? { details: redactValue(details) } : {}) };
  return { isError: true, content: [{ type: 'text', text: `${code}: ${redactValue(message)}\n${r.next}` }], structuredContent: r as unknown as Record<string, unknown> };
}

function fromError(e: unknown): CallToolResult {
  if (e instanceof BatonError) {
    const { code: _c, message: _m, ...details } = e.toJSON();
    return refusal(e.code, e.message, details);
  }
  const message = e instanceof Error ? e.message.split('\n')[0] : String(e);
  return refusal('INTERNAL', `internal error: ${message}`);
}

/**
 * A result no larger than `limit` bytes of text: secrets redacted, then, when too large,
 * the longest array of the result shortened until it fits (marked `truncated`).
 */
export function bounded(value: Record<string, unknown>, limit = MAX_TEXT_BYTES): CallToolResult {
  const out = redactValue(value);
  let text = JSON.stringify(out);
  if (Buffer.byteLength(text) > limit) {
    const key = Object.keys(out)
      .filter((k) => Array.isArray(out[k]))
      .sort((a, b) => JSON.stringify(out[b]).length - JSON.stringify(out[a]).length)[0];
    if (key) {
      const list = [...(out[key] as unknown[])];
      out.truncated = true;
      while (list.length > 0 && Buffer.byteLength(text) > limit) {
        list.pop();
        out[key] = list;
        text = JSON.stringify(out);
      }
    }
    if (Buffer.byteLength(text) > limit) {
      return refusal('USAGE', `the result is ${Buffer.byteLength(text)} bytes, over the ${limit}-byte bound: ask for a smaller page`);
    }
  }
  return { content: [{ type: 'text', text }], structuredContent: out };
}

/**
 * What the SDK advertises and checks for a tool's input: the zod schema's JSON Schema, with
 * a check that only asks for an object. The tool parses its arguments itself, so a bad
 * argument is a USAGE refusal with baton's code rather than the SDK's uncoded message.
 */
function advertised(schema: z.ZodType): StandardSchemaWithJSON {
  const std = schema['~standard'] as unknown as StandardSchemaWithJSON['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: 'baton',
      validate: (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? { value: v } : { issues: [{ message: 'arguments must be an object' }] }),
      jsonSchema: std.jsonSchema,
    },
  } as StandardSchemaWithJSON;
}

const Session = z
  .string()
  .min(1)
  .max(128)
  .optional()
  .describe("the session id or a unique prefix; omit for this agent's own session (BATON_SESSION, or the session whose episode the hooks opened here)");

type Tool<S extends z.ZodType> = {
  description: string;
  input: S;
  readOnly: boolean;
  run: (args: z.output<S>) => CallToolResult | Promise<CallToolResult>;
};

function tool<S extends z.ZodType>(t: Tool<S>): Tool<z.ZodType> {
  return t as unknown as Tool<z.ZodType>;
}

const ERRORS = (codes: string[]): string => `Errors (isError, code in text and structuredContent.code): ${codes.map((c) => `${c} — ${NEXT[c] ?? ''}`).join(' ')}`;

/** The pointer as the hook shows it: the fields, NEXT_ACTION and the block text (publishing through pointer_publish). */
function pointerNow(store: FsStore, id: string) {
  const dir = store.dir(id);
  const observed = readState(dir, id);
  const now = store.clock();
  const journal = observed.status === 'DIRTY' ? readJournalTail(dir).records : [];
  const decision = decisionOf(observed, now, journal);
  const block = renderPointerBlock({ observed, publisherCommand: 'the pointer_publish tool', now, journal, exampleTaskId: () => newTaskId() }, decision);
  return { ...pointerView(store, id), next_action: decision.action, block };
}

function contextOf(store: FsStore, id: string): string {
  const path = join(store.dir(id), 'context.md');
  if (!fs.existsSync(path)) store.refreshProjections(id);
  return fs.readFileSync(path, 'utf8');
}

export function tools(ctx: McpContext): Record<(typeof TOOL_NAMES)[number], Tool<z.ZodType>> {
  const { store } = ctx;
  const sessionOf = (given: string | undefined) => resolveSession(store, given, ctx.sessions);
  return {
    pointer_get: tool({
      description:
        "Read this session's task pointer: status (ABSENT, CLEAN, DIRTY, CLEARED), generation, revision, task_id, pointer_text, NEXT_ACTION and the block the hooks show. Call it before pointer_publish (you need the generation and revision) and after a STALE_* refusal. " +
        ERRORS(['WS001', 'STATE_CORRUPT', 'USAGE']),
      input: z.strictObject({ session: Session }),
      readOnly: true,
      run: (a) => {
        const s = sessionOf(a.session);
        return bounded({ session_from: s.from, ...pointerNow(store, s.id) });
      },
    }),

    pointer_publish: tool({
      description:
        "Publish this session's task pointer by compare-and-swap: the goal and the next concrete step, so a later run (yours or another agent's) continues from it. Pass expected_generation and expected_revision exactly as pointer_get returned them (GENERATION=ABSENT, REVISION=0 for the first publish), a task_id (keep the pointer's; a new UUID v4 for the first), target_status CLEAN, and pointer_text (≤ 8192 bytes). Returns the receipt: the new generation and revision. " +
        ERRORS(['STALE_REVISION', 'STALE_GENERATION', 'INVALID_REQUEST', 'WS001', 'WS002', 'WS302', 'LOCK_TIMEOUT', 'WRITE_FAILED']),
      input: z.strictObject({
        session: Session,
        schema_version: z.number().int().optional().describe("pointer.md's request field: 3 (optional; the block's request can be passed as it is)"),
        session_id: z.string().optional().describe("pointer.md's request field: the session's full id (optional; when session is given too, both must name the same session)"),
        expected_generation: z.string().describe('the generation pointer_get returned (ABSENT before the first publish)'),
        expected_revision: z.number().int().describe('the revision pointer_get returned (0 before the first publish)'),
        task_id: z.string().nullable().optional().describe("the pointer's task id (a new UUID v4 for the first publish)"),
        target_status: z.enum(['CLEAN', 'DIRTY', 'CLEARED']).default('CLEAN').describe('CLEAN (the default) after a checkpoint; CLEARED when the task is done'),
        pointer_text: z.string().nullable().describe('Goal: ...\\nNext: ... (null only with CLEARED)'),
      }),
      readOnly: false,
      run: (a) => {
        // pointer.md's request verbatim is accepted: session_id names the session when session does not, else it must agree.
        const s = sessionOf(a.session ?? a.session_id);
        if (a.session_id !== undefined && a.session_id !== s.id) {
          return refusal('INVALID_REQUEST', `session_id ${JSON.stringify(a.session_id)} is not the session ${s.id} this call names: send one of them, or the same id in both`, {
            detail: 'INVALID_FIELD:session_id',
            field: 'session_id',
          });
        }
        // The publisher's own parser judges the request (pointer.md's receipts), as for the CLI and the app server.
        const request = {
          schema_version: a.schema_version ?? 3,
          session_id: s.id,
          expected_generation: a.expected_generation,
          expected_revision: a.expected_revision,
          task_id: a.task_id ?? null,
          target_status: a.target_status,
          pointer_text: a.pointer_text,
        };
        const receipt = publishRaw(store, Buffer.from(JSON.stringify(request)), { writer: ctx.writer });
        if (receipt.ok) return bounded({ ...receipt });
        const { ok: _ok, error, ...rest } = receipt;
        const message =
          'message' in receipt ? receipt.message : `the pointer is now generation ${receipt.current_generation}, revision ${receipt.current_revision}; you sent ${a.expected_generation}/${a.expected_revision}`;
        return refusal(error, message, { ...rest });
      },
    }),

    context_append: tool({
      description:
        "Append a note to the session's context (a context.appended event): a decision, a finding, what is left to do — what a later run should know. Writing context needs the session's lease held by this MCP server; resume: true takes a free lease first (recorded as session.resumed; on a team's shared session nobody owns, it takes ownership first, as `baton session resume` does). " +
        ERRORS(['WS100', 'WS101', 'WS102', 'WS105', 'TM002', 'WS002', 'WS302', 'WS001', 'USAGE']),
      input: z.strictObject({
        session: Session,
        text: z.string().min(1).max(65536).describe('the note (secrets are redacted before it is stored)'),
        tags: z.array(z.string().min(1).max(64)).max(16).optional(),
        resume: z.boolean().optional().describe('take the lease first when nobody holds a valid one'),
      }),
      readOnly: false,
      run: async (a) => {
        const s = sessionOf(a.session);
        if (a.resume) {
          const lock = store.lock(s.id);
          const ours = lock !== null && lock.holder.instance_id === ctx.writer.instanceId && isValid(lock, store.clock().getTime());
          // Team mode (src/ops/team.ts): a shared session nobody owns is taken first, as `session resume` does; owned by another machine: WS105.
          if (!ours) await resumeShared(store, s.id, ctx.writer, { leaseMs: parseDuration(DEFAULT_LEASE), steal: false });
        }
        const ev = appendEntry(store, s.id, ctx.writer, { text: a.text, tags: a.tags });
        return bounded({ ok: true, session: s.id, seq: ev.seq, ts: ev.ts, type: ev.type });
      },
    }),

    session_list: tool({
      description:
        'List sessions, most recently touched first, a page at a time: id, title, state, workspace, pointer status. Pass workspace to see one project only; cursor (from next_cursor) for the next page. ' +
        ERRORS(['USAGE']),
      input: z.strictObject({
        workspace: z.string().min(1).optional().describe('only sessions of this directory (absolute path)'),
        state: z.enum(['active', 'suspended', 'archived']).optional(),
        limit: z.number().int().min(1).max(100).default(20),
        cursor: z.string().optional().describe('next_cursor of the previous page'),
      }),
      readOnly: true,
      run: (a) => {
        const cwd = a.workspace === undefined ? null : realDir(resolve(a.workspace));
        const after = a.cursor === undefined ? undefined : cursorOf(a.cursor);
        const { sessions } = listSessions(store.home, { cwd, state: a.state, limit: a.limit + 1, after });
        const data = sessions.slice(0, a.limit).map((r) => ({ id: r.id, title: r.title, state: r.state, workspace: r.workspace, last_touched_at: r.last_touched_at, last_seq: r.last_seq, pointer_status: r.pointer_status, open_episodes: r.open_episodes }));
        const last = data[data.length - 1];
        return bounded({ ok: true, sessions: data, next_cursor: sessions.length > a.limit && last ? encodeListCursor(last) : null });
      },
    }),

    session_log: tool({
      description:
        "Read a page of the session's events (seq, ts, type, surface, actor, payload), oldest first, after seq `after`. Page on with after = next_after while has_more. Pages stay under 12 KiB unless you pass a larger maxBytes. " +
        ERRORS(['WS001', 'WS201', 'USAGE']),
      input: z.strictObject({
        session: Session,
        after: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1000).default(50),
        maxBytes: z.number().int().min(256).max(MAX_LOG_PAGE_BYTES).optional().describe('bytes of events in the page (default 12288)'),
      }),
      readOnly: true,
      run: (a) => {
        const s = sessionOf(a.session);
        const maxBytes = a.maxBytes ?? DEFAULT_LOG_BYTES;
        const page = readPage(join(store.dir(s.id), LOG_FILE), START, a.after, maxBytes, redactionsOf(store, s.id));
        if (page.corrupt && page.events.length === 0) fail('WS201', `events log of ${s.id} is corrupt at seq ${page.corrupt.seq} (${page.corrupt.reason})`, { seq: page.corrupt.seq });
        const events = page.events.slice(0, a.limit).map((e) => e.event);
        const more = page.more || page.events.length > events.length;
        const next = events.length ? events[events.length - 1].seq : a.after;
        // An event larger than maxBytes comes alone, whole, marked `oversize` (as event/replay
        // sends it): never dropped from the page while next_after moves past it.
        const alone = page.oversize ? page.events[0].bytes : 0;
        const r = bounded({ ok: true, session: s.id, events, next_after: next, has_more: more, ...(page.oversize ? { oversize: true } : {}) }, Math.max(MAX_TEXT_BYTES, maxBytes + 1024, alone + 1024));
        // Cut to fit the bound (redaction can lengthen a text): page on from the last event kept.
        const out = r.structuredContent as { truncated?: boolean; events?: { seq: number }[] } | undefined;
        if (out?.truncated && out.events) {
          Object.assign(out, { next_after: out.events.length ? out.events[out.events.length - 1].seq : a.after, has_more: true });
          r.content = [{ type: 'text', text: JSON.stringify(out) }];
        }
        return r;
      },
    }),

    ref_capture: tool({
      description:
        "Cite another session in this one: captures a bounded digest of session `from` into `into` (default: this session), which the hooks then show with its freshness. Use it when work here depends on another session's decisions. " +
        ERRORS(['WS001', 'WS002', 'WS302', 'USAGE']),
      input: z.strictObject({
        from: z.string().min(1).max(128).describe('the session to cite (id or unique prefix)'),
        into: Session,
        maxBytes: z.number().int().min(0).optional(),
        maxLines: z.number().int().min(0).optional(),
        ttl: z.string().optional().describe('how long the ref stays fresh, e.g. 24h (the default)'),
      }),
      readOnly: false,
      run: (a) => {
        const into = sessionOf(a.into).id;
        const from = store.resolve(a.from);
        const ttlMs = parseDuration(a.ttl ?? DEFAULT_TTL);
        return bounded(captureRefOp(store, { from, into, ttlMs, bounds: { maxBytes: a.maxBytes ?? 0, maxLines: a.maxLines ?? 0 }, body: null, writer: ctx.writer }).json);
      },
    }),

    ref_list: tool({
      description: "List the session's refs (the sessions it cites) with their state now: fresh, stale (the source moved on), expired. " + ERRORS(['WS001']),
      input: z.strictObject({ session: Session }),
      readOnly: true,
      run: (a) => bounded(listRefs(store, sessionOf(a.session).id).json),
    }),

    search: tool({
      description:
        'Full-text search (stemmed) over every session: what the agents said and did (transcript items: user requests, assistant answers, tool calls and their files), prompts, context notes, titles, artifact names and the published task pointer of each session. Hits name the session, seq, time, agent, role and a snippet (matches in **…**). Use it to find earlier work on a topic before starting it again. ' +
        ERRORS(['USAGE', 'WS001']),
      input: z.strictObject({
        query: z.string().min(1).max(1000),
        workspace: z.string().min(1).optional().describe('only sessions of this directory'),
        type: z.string().optional().describe('only events of this type, e.g. transcript.item or prompt.submitted'),
        agent: z.enum(TRANSCRIPT_AGENTS).optional().describe('only transcript items of this agent'),
        role: z.enum(ITEM_ROLES).optional().describe('only transcript items of this role'),
        kind: z.enum(ITEM_KINDS).optional().describe('only transcript items of this kind'),
        file: z.string().min(1).max(4096).optional().describe('only items that read, wrote or edited this file'),
        session: z.string().min(1).max(256).optional().describe('only this session'),
        since: z.string().datetime().optional().describe('only what happened at or after this ISO time'),
        until: z.string().datetime().optional().describe('only what happened before this ISO time'),
        limit: z.number().int().min(1).max(50).default(10),
      }),
      readOnly: true,
      run: (a) => {
        const cwd = a.workspace === undefined ? null : realDir(resolve(a.workspace));
        const session = a.session === undefined ? undefined : store.resolve(a.session);
        const since = a.since === undefined ? undefined : new Date(a.since).toISOString();
        const until = a.until === undefined ? undefined : new Date(a.until).toISOString();
        const { hits } = searchSessions(store.home, a.query, { cwd, type: a.type, limit: a.limit, agent: a.agent, role: a.role, kind: a.kind, file: a.file, session, since, until });
        return bounded({ ok: true, hits: hits.map((h) => ({ ...h, snippet: h.snippet.replace(/[\u0002\u0003]/g, '**') })) });
      },
    }),
  };
}

/** session_list's cursor (the app server's thread/list cursor); a bad one is USAGE. */
function cursorOf(c: string): { last_touched_at: string; id: string } {
  return decodeListCursor(c) ?? fail('USAGE', 'cursor: not a next_cursor this server returned');
}

/** One MCP server (one per connection or request) with baton's tools and resources. */
export function mcpServer(ctx: McpContext): McpServer {
  const { store } = ctx;
  const server = new McpServer(
    { name: 'baton', version: ctx.version },
    { instructions: 'baton keeps durable sessions for coding agents: read and publish your task pointer (pointer_get, pointer_publish), note context, cite and search other sessions.' },
  );
  for (const [name, t] of Object.entries(tools(ctx))) {
    server.registerTool(name, { description: t.description, inputSchema: advertised(t.input), annotations: { readOnlyHint: t.readOnly, destructiveHint: false, openWorldHint: false } }, async (args: unknown) => {
      const parsed = t.input.safeParse(args ?? {});
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
        const first = issues[0];
        return refusal('USAGE', `invalid arguments for ${name}: ${first ? `${first.path || '(arguments)'}: ${first.message}` : 'rejected'}`, { issues });
      }
      try {
        return await t.run(parsed.data);
      } catch (e) {
        return fromError(e);
      }
    });
  }
  const resource = (kind: 'context' | 'pointer', read: (id: string) => { mimeType: string; text: string }) =>
    server.registerResource(
      `session-${kind}`,
      new ResourceTemplate(`baton://session/{id}/${kind}`, { list: undefined }),
      { description: kind === 'context' ? "a session's context.md: title, state, pointer, recent context" : "a session's task pointer (JSON, with the block the hooks show)" },
      (uri, vars) => {
        const id = store.resolve(String(vars.id));
        const r = read(id);
        return { contents: [{ uri: uri.href, mimeType: r.mimeType, text: redactValue(r.text) }] };
      },
    );
  resource('context', (id) => ({ mimeType: 'text/markdown', text: contextOf(store, id) }));
  resource('pointer', (id) => ({ mimeType: 'application/json', text: JSON.stringify(pointerNow(store, id)) }));
  return server;
}
