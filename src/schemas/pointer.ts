// The task pointer's formats (pointer.md, seed 000): state.json v3 (and v2 for reading),
// a journal.jsonl line, the publish request and its receipt.
// Limits counted in UTF-8 bytes are refinements: zod checks them, JSON Schema states them
// in the description (maxLength counts characters, a weaker bound given as well).
import { z } from 'zod';
import { IsoSeconds, SessionId, Sha256Hex } from './common.ts';

export const POINTER_TEXT_MAX_BYTES = 8192;
const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

export const Generation = z
  .string()
  .regex(/^g-[0-9a-f]{32}$/)
  .meta({ id: 'generation', description: 'g- and 32 lower-case hex digits' });
export const ExpectedGeneration = z.union([Generation, z.literal('ABSENT'), z.literal('LEGACY_V2')]);
export const PointerStatus = z.enum(['CLEAN', 'DIRTY', 'CLEARED']).meta({ id: 'pointer_status' });
export const TaskId = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  .meta({ id: 'task_id', description: 'a lower-case UUID v4' });
/** Stored text: LF only, non-empty, at most 8192 UTF-8 bytes. */
export const PointerText = z
  .string()
  .min(1)
  .max(POINTER_TEXT_MAX_BYTES)
  .regex(/^[^\r]+$/)
  .refine((s) => utf8Bytes(s) <= POINTER_TEXT_MAX_BYTES, { message: `pointer_text is over ${POINTER_TEXT_MAX_BYTES} UTF-8 bytes` })
  .meta({ id: 'pointer_text', description: 'the pointer text: non-empty, CRLF and CR normalised to LF, at most 8192 UTF-8 bytes' });

function stateVariants<V extends number>(version: V, withGeneration: boolean) {
  const head = withGeneration
    ? { schema_version: z.literal(version), session_id: SessionId, generation: Generation }
    : { schema_version: z.literal(version), session_id: SessionId };
  const live = z.strictObject({
    ...head,
    revision: z.int().min(1),
    status: z.enum(['CLEAN', 'DIRTY']),
    task_id: TaskId,
    pointer_text: PointerText,
    updated_at: IsoSeconds,
  });
  const cleared = z.strictObject({
    ...head,
    revision: z.int().min(1),
    status: z.literal('CLEARED'),
    task_id: z.null(),
    pointer_text: z.null(),
    updated_at: IsoSeconds,
  });
  return z.discriminatedUnion('status', [live, cleared]);
}

export const PointerStateV3 = stateVariants(3, true).meta({
  title: 'baton pointer state.json (schema v3)',
  description: 'The task pointer (pointer.md): exactly these fields; CLEAN/DIRTY carry a UUID v4 task_id and non-empty pointer_text, CLEARED has both null.',
});
export type PointerStateV3 = z.infer<typeof PointerStateV3>;

export const PointerStateV2 = stateVariants(2, false).meta({
  title: 'baton pointer state.json (schema v2, read only)',
  description: 'Schema v2: v3 without generation. Readers report its generation as LEGACY_V2; writers write only v3.',
});
export type PointerStateV2 = z.infer<typeof PointerStateV2>;

export const JournalLine = z
  .strictObject({
    journal_version: z.literal(1),
    session_id: SessionId,
    event: z.enum(['PUBLISH', 'CLEARED']),
    revision: z.int().min(1),
    generation: Generation,
    status: PointerStatus,
    task_id: TaskId.nullable(),
    pointer_digest: Sha256Hex.nullable(),
    pointer_byte_count: z.int().min(1).max(POINTER_TEXT_MAX_BYTES).nullable(),
    previous_revision: z.int().min(0),
    previous_status: z.enum(['CLEAN', 'DIRTY', 'CLEARED', 'ABSENT']).nullable(),
    recorded_at: IsoSeconds,
  })
  .meta({
    title: 'baton pointer journal.jsonl line',
    description: 'One audit record of a publish or a clear (pointer.md): metadata and digest only, never the pointer text.',
  });
export type JournalLine = z.infer<typeof JournalLine>;

/** The request on `baton pointer publish` stdin: at most 12288 bytes, no duplicate keys (checked before parsing). */
const requestHead = {
  schema_version: z.literal(3),
  session_id: SessionId,
  expected_generation: ExpectedGeneration,
  expected_revision: z.int().min(0),
};
const RequestText = z
  .string()
  .min(1)
  .refine((s) => utf8Bytes(s.replace(/\r\n?/g, '\n')) <= POINTER_TEXT_MAX_BYTES, { message: `pointer_text is over ${POINTER_TEXT_MAX_BYTES} UTF-8 bytes` })
  .meta({ description: 'non-empty; CRLF and CR are normalised to LF, then at most 8192 UTF-8 bytes' });
export const PublishRequest = z
  .discriminatedUnion('target_status', [
    z.strictObject({ ...requestHead, task_id: TaskId, target_status: z.enum(['CLEAN', 'DIRTY']), pointer_text: RequestText }),
    z.strictObject({ ...requestHead, task_id: z.null(), target_status: z.literal('CLEARED'), pointer_text: z.null() }),
  ])
  .meta({
    title: 'baton pointer publish request (schema v3)',
    description: 'One JSON object on stdin of baton pointer publish (pointer.md): at most 12288 bytes, strict UTF-8, no duplicate keys, exactly these fields.',
  });
export type PublishRequest = z.infer<typeof PublishRequest>;

export const PublishReceipt = z
  .union([
    z.strictObject({
      ok: z.literal(true),
      session_id: SessionId,
      generation: Generation,
      revision: z.int().min(1),
      status: PointerStatus,
      journal_appended: z.boolean(),
      journal_error: z.literal('JOURNAL_APPEND_FAILED').nullable(),
      redacted: z.int().min(1).optional().meta({ description: 'secrets replaced by <redacted> in the stored pointer_text; present only when > 0' }),
    }),
    z.strictObject({
      ok: z.literal(false),
      error: z.enum(['STALE_GENERATION', 'STALE_REVISION']),
      current_generation: ExpectedGeneration,
      current_revision: z.int().min(0),
    }),
    z.strictObject({
      ok: z.literal(false),
      error: z.literal('INVALID_REQUEST'),
      detail: z.string().regex(/^(REQUEST_TOO_LARGE|INVALID_UTF8|INVALID_JSON|NOT_AN_OBJECT|DUPLICATE_FIELD|UNKNOWN_FIELD|MISSING_FIELD|INVALID_FIELD:.+)$/),
      field: z.string().optional(),
      message: z.string(),
    }),
    z.strictObject({
      ok: z.literal(false),
      error: z.enum(['STATE_CORRUPT', 'LOCK_TIMEOUT', 'WRITE_FAILED']),
      message: z.string(),
      cause: z.string().nullable().optional(),
    }),
  ])
  .meta({
    title: 'baton pointer publish receipt',
    description: 'The one JSON object baton pointer publish prints (pointer.md): ok:true with the new state (exit 0), or ok:false with an error code (exit 2, state untouched).',
  });
export type PublishReceipt = z.infer<typeof PublishReceipt>;
