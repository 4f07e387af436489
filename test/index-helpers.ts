// Helpers of the index tests: sessions written through the real store API in-process
// (fast), the index API called in-process as a long-lived reader would.
import { FsStore, type Writer } from '../src/store/store.ts';

export const WRITER: Writer = { surface: 'cli', instanceId: 'cli@index-test', actor: 'user' };

export function makeSession(home: string, title: string, cwd: string, opts: { id?: string; texts?: string[]; gitRoot?: string } = {}): string {
  const store = new FsStore(home);
  const ws: { cwd: string; git_root?: string } = { cwd };
  if (opts.gitRoot) ws.git_root = opts.gitRoot;
  const { id } = store.create({ title, id: opts.id, workspace: ws, writer: WRITER, leaseMs: 600_000 });
  for (const text of opts.texts ?? []) store.append(id, { type: 'context.appended', surface: 'cli', actor: 'user', payload: { text } }, WRITER);
  return id;
}

export function append(home: string, id: string, type: string, payload: Record<string, unknown>, surface = 'cli'): number {
  const store = new FsStore(home);
  const w: Writer = surface === 'cli' ? WRITER : { surface, instanceId: `${surface}:x`, actor: 'system' };
  const evs = store.append(id, { type, surface, actor: w.actor, payload }, w);
  return evs[evs.length - 1].seq;
}
