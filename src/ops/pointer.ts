// The pointer as every surface reads it (`baton pointer show --json`, the app server's
// pointer/get): state.json observed, ABSENT/0 when none was published. Read-only.
import { readState } from '../pointer/state.ts';
import type { FsStore } from '../store/store.ts';

export function pointerView(store: FsStore, id: string) {
  const o = readState(store.dir(id), id);
  return {
    ok: true as const,
    session_id: id,
    schema_version: o.schema === 0 ? null : o.schema,
    generation: o.generation,
    revision: o.revision,
    status: o.status,
    task_id: o.task_id,
    pointer_text: o.pointer_text,
    updated_at: o.updated_at,
  };
}
