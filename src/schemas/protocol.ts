// The app server's protocol (server.md): every method's params and result and every
// notification, in one place. The server validates params with these; scripts/gen-schemas.ts
// renders them to schemas/protocol/*.schema.json and generates the typed client
// (src/client/protocol.gen.ts). Server side only: zod never loads on the hook path.
// Envelope fields of the protocol are camelCase (threadId, nextCursor); the objects that are
// baton's own formats (manifest, lock, events, pointer receipts, refs, list rows) keep the
// snake_case of the files and of the CLI's --json.
import { ITEM_KINDS, ITEM_ROLES, TRANSCRIPT_AGENTS } from '../core/transcript.ts';
import { z } from 'zod';
import { Holder, IsoMillis, Runtime, SessionId } from './common.ts';
import { EventLine as EventLineFormat, EventPayloads } from './event.ts';
import { PublishReceipt, PublishRequest } from './pointer.ts';
import { LockFile, Manifest } from './store-files.ts';

/** Bumped when a field is renamed or removed; adding a field keeps it. */
export const PROTOCOL_VERSION = '1';
export const MAX_PAGE_BYTES = 1024 * 1024;
export const MAX_LIST_LIMIT = 500;
export const DEFAULT_LIST_LIMIT = 50;

// Named shared shapes: their JSON Schemas go to $defs and the generated client names them once.
const EventLine = EventLineFormat.meta({ id: 'Event' });

const ThreadId = z.string().min(1).max(256).meta({ description: 'the session id (or an unambiguous prefix of it)' });
const Duration = z.string().regex(/^\d+(ms|s|m|h|d)$/).meta({ description: 'a duration: 90s, 10m, 2h, 7d' });
const Seq0 = z.int().min(0);
const Empty = z.strictObject({});

export const SURFACES = ['api', 'web', 'ide-skill'] as const;

const ClientName = z
  .string()
  .regex(/^[^@\s\x00-\x1f\x7f][^@\x00-\x1f\x7f]{0,63}$/)
  .meta({ description: 'no @ and no control characters; part of the stable instance id' });

const Initialize = {
  params: z.strictObject({
    clientInfo: z.strictObject({ name: ClientName, version: z.string().max(64) }),
    surface: z.enum(SURFACES).optional(),
    protocolVersion: z.string().max(16).optional(),
  }),
  result: z.object({
    serverInfo: z.object({ name: z.literal('baton'), version: z.string() }),
    protocolVersion: z.string(),
    instanceId: z.string(),
    capabilities: z.object({ methods: z.array(z.string()), notifications: z.array(z.string()) }),
  }),
};

const Project = z.object({
  id: z.string(),
  path: z.string(),
  source: z.enum(['manual', 'discovered']),
  trust: z.enum(['trusted', 'untrusted']),
  sessions: z.int(),
}).meta({ id: 'Project' });

const OpenEpisode = z.object({
  episode: z.string(),
  provider: z.string(),
  provider_session_id: z.string(),
  source: z.string(),
  opened_at: z.string(),
  opened_seq: z.int(),
  context_file: z.string().nullable(),
  prompts: z.int(),
}).meta({ id: 'OpenEpisode' });

const ThreadSummary = z.object({
  id: SessionId,
  state: z.enum(['active', 'suspended', 'archived']),
  title: z.string(),
  workspace: z.string().nullable(),
  git_root: z.string().nullable(),
  created_at: z.string(),
  last_touched_at: z.string(),
  events: z.int(),
  last_seq: z.int(),
  pointer_status: z.string().nullable(),
  open_episode: OpenEpisode.nullable(),
  open_episodes: z.int(),
  corrupt: z.object({ line: z.int(), reason: z.string() }).nullable(),
  conflict: z.object({ detected_at: z.string(), detail: z.string() }).nullable(),
}).meta({ id: 'ThreadSummary' });

const RefNow = z.object({
  source: SessionId,
  target: SessionId,
  source_version: z.int(),
  seq: z.int(),
  max_bytes: z.int(),
  max_lines: z.int(),
  digest: z.string(),
  captured_at: IsoMillis,
  expires_at: IsoMillis,
  truncated: z.boolean(),
  original_bytes: z.int(),
  bytes: z.int(),
  state: z.enum(['fresh', 'expired', 'stale']),
  current_version: z.int(),
}).meta({ id: 'RefNow' });

const Thread = z.object({
  id: SessionId,
  manifest: Manifest,
  lease: LockFile.extend({ valid: z.boolean() }).nullable(),
  pointer: z.object({ status: z.string(), revision: z.int() }).nullable(),
  openEpisodes: z.array(OpenEpisode),
  refs: z.array(RefNow),
  workspaceOverride: z.string().nullable().meta({ description: "this server's workspace for the thread (thread/resume's workspacePath); never the session's origin" }),
  /** thread/read only: the index's view of the log (a corrupt line, a projection_conflict), for the web page's banners. */
  corrupt: ThreadSummary.shape.corrupt.optional(),
  conflict: ThreadSummary.shape.conflict.optional(),
  teamConflicts: z
    .array(
      z.object({
        file: z.string().meta({ description: 'relative to the session folder: conflicts/<epoch>-<machine>.jsonl' }),
        epoch: z.int(),
        machine: z.string(),
        events: z.int(),
      }),
    )
    .meta({ description: "team mode: a former owner's events kept after it lost ownership (docs/team.md), until `baton team resolve` re-appends them" }),
}).meta({ id: 'Thread' });

const ReplayPage = z.object({
  events: z.array(EventLine),
  nextAfter: Seq0,
  hasMore: z.boolean(),
  oversize: z.boolean().optional().meta({ description: 'the page is one event larger than maxBytes, sent alone' }),
}).meta({ id: 'ReplayPage' });

const MaxBytes = z.int().min(1).max(MAX_PAGE_BYTES);

const TurnItem = EventPayloads['transcript.item'].extend({ seq: z.int().min(1) }).meta({ id: 'TurnItem' });

const Turn = z
  .object({
    id: z.int().min(1).meta({ description: "the seq of the turn's first item (its user message): of its first record when the agent changed it since, so turn ids keep the log's order" }),
    startedAt: z.string(),
    agent: z.string(),
    items: z.array(TurnItem),
    itemsOmitted: z.int().min(1).optional().meta({ description: 'the turn alone was over the bound: it holds its first item (the request) and its newest items, and this many between them were left out (event/replay reads them by seq)' }),
  })
  .meta({ id: 'Turn', description: 'a user message and every transcript item up to the next one (docs/transcripts.md)' });

const TurnsPage = z.object({
  turns: z.array(Turn).meta({ description: 'newest first' }),
  nextBefore: z.int().nullable().meta({ description: 'pass as before to thread/turns/list for the older turns; null when none' }),
  totalItems: z.int(),
});

const ThreadRead = {
  params: z.strictObject({
    threadId: ThreadId,
    includeEvents: z.strictObject({ after: Seq0.optional(), maxBytes: MaxBytes.optional() }).optional(),
    includeTurns: z.strictObject({ limit: z.int().min(1).max(200).optional(), maxBytes: MaxBytes.optional() }).optional(),
  }),
  result: z.object({ thread: Thread, events: ReplayPage.optional(), turns: TurnsPage.optional() }),
};

const Lease = { lease: Duration.optional() };

const Episode = z.object({
  episode: z.string(),
  provider: z.string(),
  provider_session_id: z.string(),
  source: z.string(),
  opened_seq: z.int(),
  opened_at: z.string(),
  context_digest: z.string().nullable().meta({ description: 'sha256 of the start context the episode was given (its frozen file), when one was' }),
  closed_seq: z.int().nullable(),
  closed_at: z.string().nullable(),
  outcome: z.string().nullable(),
  reason: z.string().nullable(),
  prompts: z.int(),
}).meta({ id: 'Episode' });

const SearchHit = z.object({
  session: SessionId,
  seq: z.int(),
  type: z.string(),
  snippet: z.string().meta({ description: 'the text around the match; matched words between \\u0002 and \\u0003' }),
  score: z.number(),
  title: z.string(),
  workspace: z.string().nullable(),
  at: z.string().meta({ description: "the item's own time, else the event's" }),
  agent: z.string().optional(),
  role: z.string().optional(),
  kind: z.string().optional(),
  item_id: z.string().optional(),
  tool: z.string().optional(),
  files: z.array(z.string()).optional(),
}).meta({ id: 'SearchHit' });

/** search's filters on transcript items (docs/transcripts.md, "Search and files"). */
const ItemFilter = {
  agent: z.enum(TRANSCRIPT_AGENTS).optional(),
  role: z.enum(ITEM_ROLES).optional(),
  kind: z.enum(ITEM_KINDS).optional(),
  file: z.string().min(1).max(4096).optional().meta({ description: 'items that read, wrote or edited this file (workspace-relative or absolute)' }),
  session: z.string().min(1).max(256).optional().meta({ description: 'only this session (an id or an unambiguous prefix)' }),
  since: IsoMillis.optional().meta({ description: 'items at or after this time' }),
  until: IsoMillis.optional().meta({ description: 'items before this time' }),
};

/** method -> params and result. */
export const METHODS = {
  initialize: Initialize,
  'project/list': { params: Empty, result: z.object({ data: z.array(Project) }) },
  'thread/list': {
    params: z.strictObject({
      cwd: z.string().min(1).optional().meta({ description: 'exact workspace (real path); default every workspace' }),
      all: z.boolean().optional(),
      state: z.enum(['active', 'suspended', 'archived']).optional(),
      search: z.string().min(1).max(1000).optional().meta({ description: 'only threads with a full-text hit (index.md search)' }),
      cursor: z.string().max(1024).optional(),
      limit: z.int().min(1).max(MAX_LIST_LIMIT).optional(),
    }),
    result: z.object({ data: z.array(ThreadSummary), nextCursor: z.string().nullable() }),
  },
  'thread/read': ThreadRead,
  'thread/continue': {
    params: z.strictObject({
      threadId: ThreadId,
      in: z.enum(TRANSCRIPT_AGENTS).optional().meta({ description: 'the agent to continue in; absent: the one the session last ran in, through its own resume' }),
      budget: z.int().min(512).max(65536).optional().meta({ description: "the handoff block's bytes (default 4096)" }),
      workspace: z.string().min(1).optional().meta({ description: "an absolute folder to run in instead of the session's workspace" }),
    }),
    result: z.object({
      plan: z
        .object({
          session: SessionId,
          agent: z.string(),
          mode: z.enum(['resume', 'start']),
          from_agent: z.string().nullable(),
          agent_session: z.string().nullable(),
          command: z.string().meta({ description: 'the exact command line to run in a shell' }),
          program: z.string(),
          argv: z.array(z.string()),
          env: z.record(z.string(), z.string()),
          cwd: z.string(),
          block: z.string().nullable().meta({ description: "the handoff block the agent's first start gets (mode start)" }),
          lease: z.object({ surface: z.string(), instance_id: z.string() }),
          install: z.string(),
        })
        .meta({ id: 'ContinuePlan', description: 'baton continue --print as one document: nothing is run and no lease is taken (docs/cli.md)' }),
    }),
  },
  'thread/turns/list': {
    params: z.strictObject({
      threadId: ThreadId,
      before: z.int().min(1).optional().meta({ description: 'only turns that began before this seq (the nextBefore of the last page)' }),
      limit: z.int().min(1).max(200).optional(),
      maxBytes: MaxBytes.optional(),
    }),
    result: z.object({ data: z.array(Turn), nextBefore: z.int().nullable(), totalItems: z.int() }),
  },
  'thread/start': {
    params: z.strictObject({
      title: z.string().min(1).max(1000),
      cwd: z.string().min(1),
      taskId: z.string().min(1).max(200).optional(),
      allow: z.array(Runtime).optional(),
      id: z.string().min(1).max(256).optional(),
      ...Lease,
    }),
    result: z.object({ thread: Thread }),
  },
  'thread/resume': {
    params: z.strictObject({ threadId: ThreadId, workspacePath: z.string().min(1).optional(), steal: z.boolean().optional(), ...Lease }),
    result: z.object({
      thread: Thread,
      context: z.string(),
      fromSeq: Seq0,
      lastSeq: Seq0,
      leaseUntil: IsoMillis.nullable(),
      workspace: z.string().nullable(),
      team: z
        .object({ epoch: z.int().min(1), previousOwner: z.string().nullable(), pulled: z.int().min(0) })
        .optional()
        .meta({ description: 'team mode only: this machine took the shared session first (docs/team.md): the new epoch, the owner before (null: released), events pulled' }),
    }),
  },
  'thread/release': {
    params: z.strictObject({ threadId: ThreadId }),
    result: z.object({
      threadId: SessionId,
      seq: z.int(),
      team: z
        .object({ released: z.literal(true), pushed: z.int().min(0) })
        .optional()
        .meta({ description: 'team mode only: ownership given up after pushing everything, in the same transaction (docs/team.md)' }),
    }),
  },
  'thread/renew': { params: z.strictObject({ threadId: ThreadId, ...Lease }), result: z.object({ threadId: SessionId, leaseUntil: IsoMillis, seq: z.int() }) },
  'thread/archive': {
    params: z.strictObject({ threadId: ThreadId, retroTemplate: z.enum(['default', 'brief']).optional() }),
    result: z.object({ threadId: SessionId, seq: z.int(), retrospective: z.string() }),
  },
  'context/append': {
    params: z.strictObject({
      threadId: ThreadId,
      text: z.string(),
      type: z.string().min(1).max(200).optional(),
      tags: z.array(z.string().min(1).max(200)).max(50).optional(),
      actor: z.enum(['user', 'agent', 'system']).optional(),
    }),
    result: z.object({ event: EventLine }),
  },
  'event/replay': {
    params: z.strictObject({ threadId: ThreadId, after: Seq0, maxBytes: MaxBytes.optional() }),
    result: ReplayPage,
  },
  'event/subscribe': {
    params: z.strictObject({ threadId: ThreadId, after: Seq0.optional().meta({ description: 'default: the last seq now (only new events)' }) }),
    result: z.object({ subscriptionId: z.string(), threadId: SessionId, after: Seq0 }),
  },
  'event/unsubscribe': { params: z.strictObject({ subscriptionId: z.string().min(1).max(64) }), result: Empty },
  'pointer/get': {
    params: z.strictObject({ threadId: ThreadId }),
    result: z.object({
      ok: z.literal(true).meta({ description: "as the CLI's `pointer show --json`" }),
      session_id: SessionId,
      schema_version: z.int().nullable(),
      generation: z.string(),
      revision: z.int(),
      status: z.string().nullable(),
      task_id: z.string().nullable(),
      pointer_text: z.string().nullable(),
      updated_at: z.string().nullable(),
    }),
  },
  'pointer/publish': { params: PublishRequest, result: PublishReceipt },
  'ref/capture': {
    params: z.strictObject({
      from: ThreadId,
      into: ThreadId,
      maxBytes: z.int().min(0).optional(),
      maxLines: z.int().min(0).optional(),
      ttl: Duration.optional(),
      body: z.string().optional().meta({ description: 'capture this text instead of the default body' }),
    }),
    result: z.object({ ok: z.literal(true), session: SessionId, ref: RefNow }),
  },
  'ref/list': { params: z.strictObject({ threadId: ThreadId }), result: z.object({ ok: z.literal(true), session: SessionId, refs: z.array(RefNow) }) },
  'ref/render': {
    params: z.strictObject({ threadId: ThreadId, digest: z.string().optional() }),
    result: z.object({
      ok: z.literal(true),
      session: SessionId,
      rendered: z.string(),
      refs: z.array(z.object({ source: SessionId, digest: z.string(), state: z.string(), current_version: z.int() })),
    }),
  },
  'episode/list': { params: z.strictObject({ threadId: ThreadId }), result: z.object({ threadId: SessionId, data: z.array(Episode) }) },
  search: {
    params: z.strictObject({
      query: z.string().min(1).max(1000),
      cwd: z.string().min(1).optional(),
      all: z.boolean().optional(),
      type: z.string().optional(),
      ...ItemFilter,
      limit: z.int().min(1).max(MAX_LIST_LIMIT).optional(),
    }),
    result: z.object({ data: z.array(SearchHit) }),
  },
} as const satisfies Record<string, { params: z.ZodType; result: z.ZodType }>;

/** notification -> params (server to client). `initialized` is the client's. */
export const NOTIFICATIONS = {
  initialized: z.strictObject({}).optional(),
  'event/appended': z.object({ subscriptionId: z.string(), threadId: SessionId, event: EventLine }),
} as const satisfies Record<string, z.ZodType>;

/** The error object's data of a -32000 refusal. */
export const ErrorData = z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) });

export type MethodName = keyof typeof METHODS;
export type ParamsOf<M extends MethodName> = z.input<(typeof METHODS)[M]['params']>;
export type ResultOf<M extends MethodName> = z.output<(typeof METHODS)[M]['result']>;

export { Holder };
