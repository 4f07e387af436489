// The event line of events.jsonl (store.md) with one payload schema per reserved type
// (store.md, hooks.md, pointer.md, refs.md). Payloads whose key set the spec fixes are
// strict objects; those it lists loosely (context.rewritten, pointer.*) are loose.
// `h` is the last field of the line: a byte-level rule the chain check enforces, not this schema.
import { ITEM_KINDS, ITEM_ROLES, TRANSCRIPT_AGENTS } from '../core/transcript.ts';
import { z } from 'zod';
import { Actor, Holder, IsoMillis, Runtime, SessionId, Sha256Hex, Surface, Workspace } from './common.ts';

const NonNegInt = z.int().min(0);
const Seq = z.int().min(1).meta({ id: 'seq', description: '1, 2, 3, ... contiguous per session' });
const ChainHash = z
  .string()
  .regex(/^[0-9a-f]{32}$/)
  .meta({ id: 'chain_hash', description: "first 32 hex digits of sha256(previous h + this line's bytes before ,\"h\":)" });

/** Fields the journal also records (pointer.md): the event carries metadata, never the text. */
const pointerMeta = {
  session_id: SessionId.optional(),
  event: z.enum(['PUBLISH', 'CLEARED']).optional(),
  revision: z.int().min(1).optional(),
  generation: z.string().regex(/^g-[0-9a-f]{32}$/).optional(),
  status: z.enum(['CLEAN', 'DIRTY', 'CLEARED']).optional(),
  task_id: z.string().nullable().optional(),
  pointer_digest: Sha256Hex.nullable().optional(),
  pointer_byte_count: NonNegInt.nullable().optional(),
  previous_generation: z.string().regex(/^(g-[0-9a-f]{32}|ABSENT|LEGACY_V2)$/).optional(),
  previous_revision: NonNegInt.optional(),
  previous_status: z.enum(['CLEAN', 'DIRTY', 'CLEARED', 'ABSENT']).nullable().optional(),
  recorded_at: z.string().optional(),
  /** What wrote it: publish, hook:prompt, hook:clear, migrate. */
  source: z.string().optional(),
  pointer_text: z.never().optional().meta({ description: 'never present: the log holds pointer metadata only' }),
  text: z.never().optional().meta({ description: 'never present: the log holds pointer metadata only' }),
};

/** A workspace as an export shows it (exchange.md): the folder's name and a hash of its real path. */
const AnonymousWorkspace = z
  .strictObject({
    name: z.string(),
    hash: z.string().regex(/^[0-9a-f]{16}$/),
    git_branch: z.string().min(1).optional(),
  })
  .meta({ id: 'anonymous_workspace', description: "an exported session's workspace: the folder's name and the first 16 hex of sha256 of its real path" });

export const EventPayloads = {
  'session.created': z.strictObject({
    title: z.string(),
    task_id: z.string().optional(),
    parent_session: SessionId.optional(),
    workspace: z.union([Workspace, AnonymousWorkspace]),
    allowed_runtimes: z.array(Runtime),
    created_by: z.string().min(1),
    at: IsoMillis.optional().meta({ description: 'when it happened, for an event recorded after the fact (history import): the agent\'s own time; the session\'s last activity counts it, never past ts' }),
  }),
  'session.imported': z.strictObject({
    origin_id: z.string().min(1),
    /** sha256 of the export's baton-export.json (of events.toml for a world-session-v1 layout without one). */
    digest: Sha256Hex,
    layout: z.enum(['baton', 'world-session-v1']),
    title: z.string(),
    workspace: Workspace,
    allowed_runtimes: z.array(Runtime),
    created_by: z.string().min(1),
    exported_at: z.string().optional(),
    origin_workspace: AnonymousWorkspace.optional(),
    /** How many of the origin's events follow, re-sequenced from seq 2. */
    events: NonNegInt,
  }),
  'session.updated': z.strictObject({
    title: z.string().optional(),
    task_id: z.string().nullable().optional(),
    allowed_runtimes: z.array(Runtime).optional(),
  }),
  'session.titled': z
    .strictObject({
      title: z.string().min(1),
      from: z.enum(['prompt']),
    })
    .meta({ description: "a hook-created session's default title replaced by its first prompt (no lease needed; a title a person gave is never replaced)" }),
  'session.resumed': z.strictObject({
    from_seq: NonNegInt,
    workspace_override: z.string().min(1).optional(),
  }),
  'session.suspended': z.strictObject({ reason: z.string() }),
  'session.archived': z.strictObject({
    retrospective: z.string().min(1),
    target_path: z.string().min(1).optional(),
  }),
  'context.appended': z.strictObject({
    text: z.string(),
    tags: z.array(z.string()).optional(),
  }),
  'context.rewritten': z.looseObject({
    prev_seq: NonNegInt,
    summary: z.string(),
    redacts: z.array(Seq).optional(),
  }),
  'artifact.added': z.strictObject({ path: z.string().min(1), sha256: Sha256Hex }),
  'artifact.updated': z.strictObject({ path: z.string().min(1), sha256_old: Sha256Hex, sha256_new: Sha256Hex }),
  'artifact.removed': z.strictObject({ path: z.string().min(1) }),
  'lock.acquired': z.strictObject({ holder: Holder, lease_until: IsoMillis }),
  'lock.renewed': z.strictObject({ lease_until: IsoMillis }),
  'lock.released': z.strictObject({
    /** ownership_moved: team mode, another machine took the shared session (docs/team.md). */
    reason: z.enum(['released', 'expired', 'stolen', 'ownership_moved']),
    /** The previous holder, recorded when a lease is stolen. */
    holder: Holder.optional(),
  }),
  'runtime.error': z.strictObject({ surface: z.string(), message: z.string() }),
  'runtime.skill_invoked': z.strictObject({
    skill_name: z.string().min(1),
    runtime: z.string().min(1),
    degraded: z.boolean().optional(),
    unavailable_capabilities: z.array(z.string()).optional(),
  }),
  'runtime.skill_completed': z.strictObject({
    skill_name: z.string().min(1),
    result_path: z.string().optional(),
  }),
  'episode.opened': z.strictObject({
    episode: z.string().min(1),
    provider: z.string().min(1),
    provider_session_id: z.string().min(1),
    source: z.string(),
    context_file: z.string(),
    transcript_path: z.string().optional(),
    model: z.string().optional(),
    at: IsoMillis.optional().meta({ description: 'when it happened, for an event recorded after the fact (history import): the agent\'s own time; the session\'s last activity counts it, never past ts' }),
  }),
  'episode.closed': z.strictObject({
    episode: z.string().min(1),
    reason: z.string(),
    outcome: z.enum(['closed', 'interrupted']),
    duration_ms: NonNegInt,
    prompts: NonNegInt,
    at: IsoMillis.optional().meta({ description: 'when it happened, for an event recorded after the fact (history import): the agent\'s own time; the session\'s last activity counts it, never past ts' }),
  }),
  'prompt.submitted': z.strictObject({
    episode: z.string().min(1).nullable(),
    text: z.string(),
    digest: z.string().regex(/^[0-9a-f]{12,64}$/),
    truncated: z.boolean().optional(),
    original_bytes: NonNegInt.optional(),
  }),
  'pointer.published': z.looseObject(pointerMeta),
  'pointer.cleared': z.looseObject(pointerMeta),
  'ref.captured': z.strictObject({
    source: SessionId,
    source_version: NonNegInt,
    captured_at: z.string().min(1),
    expires_at: z.string().min(1),
    truncated: z.boolean(),
    original_bytes: NonNegInt,
    digest: z.string().regex(/^[0-9a-f]{12}$/),
    target: SessionId,
  }),
  'transcript.item': z
    .strictObject({
      agent: z.enum(TRANSCRIPT_AGENTS),
      agent_session: z.string().min(1),
      item_id: z.string().min(1).max(256).meta({ description: "the agent's own stable id for the item (with agent and agent_session it identifies the item)" }),
      at: IsoMillis,
      role: z.enum(ITEM_ROLES),
      kind: z.enum(ITEM_KINDS),
      text: z.string().meta({ description: 'the visible text, redacted; at most 32 KiB (8 KiB for tool results), head and tail kept around a marked cut' }),
      truncated: z.strictObject({ original_bytes: NonNegInt, sha256: Sha256Hex }).optional(),
      tool: z
        .strictObject({
          name: z.string(),
          call_id: z.string(),
          input: z.unknown().optional().meta({ description: 'the tool input, redacted, at most 4 KiB of JSON (else {_truncated, original_bytes})' }),
        })
        .optional(),
      files: z.array(z.string().min(1)).max(64).optional().meta({ description: 'workspace-relative paths the item read, wrote or edited' }),
      model: z.string().min(1).optional(),
      usage: z
        .strictObject({ input: NonNegInt.optional(), output: NonNegInt.optional(), cache_read: NonNegInt.optional(), cache_write: NonNegInt.optional() })
        .optional(),
      supersedes: Seq.optional().meta({ description: 'the seq of an earlier record of the same item whose content the agent changed since' }),
    })
    .meta({ description: "one item of an agent's visible conversation (transcripts.md), captured at turn end or imported" }),
} as const;

export type ReservedEventType = keyof typeof EventPayloads;
export const RESERVED_EVENT_TYPES = Object.keys(EventPayloads) as ReservedEventType[];
export type EventPayload<T extends ReservedEventType> = z.infer<(typeof EventPayloads)[T]>;

const envelope = {
  seq: Seq,
  ts: IsoMillis,
  surface: Surface,
  actor: Actor,
  h: ChainHash,
};

function reservedLine<T extends ReservedEventType>(type: T) {
  const { seq, ts, surface, actor, h } = envelope;
  return z.strictObject({ seq, ts, type: z.literal(type), surface, actor, payload: EventPayloads[type], h });
}

const reservedLines = RESERVED_EVENT_TYPES.map((t) => reservedLine(t)) as unknown as [
  ReturnType<typeof reservedLine<ReservedEventType>>,
  ...ReturnType<typeof reservedLine<ReservedEventType>>[],
];

/** A custom event: `x.<name>`, any object payload. */
export const CustomEventLine = z.strictObject({
  seq: envelope.seq,
  ts: envelope.ts,
  type: z.string().regex(/^x\.[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$/),
  surface: envelope.surface,
  actor: envelope.actor,
  payload: z.record(z.string(), z.unknown()),
  h: envelope.h,
});

export const EventLine = z
  .union([z.discriminatedUnion('type', reservedLines), CustomEventLine])
  .meta({
    title: 'baton event line',
    description: 'One line of a session\'s events.jsonl (store.md): seq, ts, type, surface, actor, payload, h — h last. Reserved types have fixed payloads; custom types start with "x.".',
  });

/** One event line as stored, with its payload typed by `type`. */
export type EventLine =
  | { [T in ReservedEventType]: { seq: number; ts: string; type: T; surface: string; actor: z.infer<typeof Actor>; payload: EventPayload<T>; h: string } }[ReservedEventType]
  | z.infer<typeof CustomEventLine>;
