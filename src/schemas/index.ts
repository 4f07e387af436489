// Every file format baton writes, by the name of its JSON Schema in schemas/.
// scripts/gen-schemas.ts renders these; test/schemas.test.ts checks real files against them.
// Outside tests and scripts, import only types from here (`import type`): zod stays off the hot path.
import { z } from 'zod';
import { EventLine } from './event.ts';
import { JournalLine, PointerStateV2, PointerStateV3, PublishReceipt, PublishRequest } from './pointer.ts';
import { LockFile, Manifest } from './store-files.ts';

export type { Holder, Workspace } from './common.ts';
export type { EventLine, EventPayload, ReservedEventType } from './event.ts';
export type { JournalLine, PointerStateV2, PointerStateV3, PublishReceipt, PublishRequest } from './pointer.ts';
export type { LockFile, Manifest } from './store-files.ts';

/** name -> schema; schemas/<name>.schema.json is generated from each. */
export const FORMATS = {
  'event-line': EventLine,
  manifest: Manifest,
  lock: LockFile,
  'state-v3': PointerStateV3,
  'state-v2': PointerStateV2,
  'journal-line': JournalLine,
  'publish-request-v3': PublishRequest,
  'publish-receipt': PublishReceipt,
} as const satisfies Record<string, z.ZodType>;

export type FormatName = keyof typeof FORMATS;

/** Key order of the generated files: these first, in this order; then the rest sorted, `$defs` last; `properties` keep field order. */
const HEAD_KEYS = ['$schema', '$id', 'title', 'description', 'type'];
const TAIL_KEYS = ['$defs'];

export function stable(v: unknown, inProperties = false): unknown {
  if (Array.isArray(v)) return v.map((x) => stable(x));
  if (!v || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const keys = inProperties
    ? Object.keys(o)
    : [
        ...HEAD_KEYS.filter((k) => k in o),
        ...Object.keys(o)
          .filter((k) => !HEAD_KEYS.includes(k) && !TAIL_KEYS.includes(k))
          .sort(),
        ...TAIL_KEYS.filter((k) => k in o),
      ];
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = stable(o[k], !inProperties && (k === 'properties' || k === '$defs'));
  return out;
}

/** The text of schemas/<name>.schema.json for every format, as gen-schemas writes it. */
export function renderJsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(FORMATS)) {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
    const withId = { $id: `${name}.schema.json`, ...json };
    out[`${name}.schema.json`] = `${JSON.stringify(stable(withId), null, 2)}\n`;
  }
  return out;
}
