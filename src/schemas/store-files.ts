// manifest.json and lock.json (store.md): the projection of a session's log and its writer lease.
import { z } from 'zod';
import { Holder, IsoMillis, Runtime, SessionId, Surface, Workspace } from './common.ts';

export const Manifest = z
  .strictObject({
    id: SessionId,
    title: z.string(),
    schema: z.literal('baton-session-1'),
    created_by: z.string().min(1),
    created_at: IsoMillis,
    task_id: z.string().nullable(),
    parent_session: SessionId.nullable(),
    allowed_runtimes: z.array(Runtime),
    workspace: Workspace.nullable(),
    status: z.strictObject({
      state: z.enum(['active', 'suspended', 'archived']),
      last_event_seq: z.int().min(1),
      last_writer: Surface,
      last_touched_at: IsoMillis,
    }),
  })
  .meta({
    title: 'baton manifest.json',
    description: "A session's manifest (store.md, World Session's manifest): a projection of its events.jsonl, rebuilt when behind the log.",
  });
export type Manifest = z.infer<typeof Manifest>;

export const LockFile = z
  .strictObject({
    holder: Holder,
    lease: z.strictObject({
      acquired_at: IsoMillis,
      lease_until: IsoMillis,
      renew_count: z.int().min(0),
    }),
  })
  .meta({
    title: 'baton lock.json',
    description: "A session's writer lease (store.md): created with O_CREAT|O_EXCL, present only while someone holds it.",
  });
export type LockFile = z.infer<typeof LockFile>;
