// The ref operations every surface calls (`baton ref ...`, the app server's ref/*): their
// results are the CLI's --json documents. The rules are in core/refs.ts, storage in store/refs.ts.
import { fail } from '../core/errors.ts';
import { render } from '../core/refs.ts';
import { REF_NOT_FOUND, type RefNow, type StoredRef, captureRef, refsNow } from '../store/refs.ts';
import type { FsStore, Writer } from '../store/store.ts';

/** A ref without its body, with its size. */
export function refJson(ref: StoredRef): Record<string, unknown> {
  const { body, schema: _schema, ...rest } = ref;
  return { ...rest, bytes: Buffer.byteLength(body, 'utf8') };
}

export function nowJson(r: RefNow): Record<string, unknown> {
  return { ...refJson(r.ref), state: r.state, current_version: r.current_version };
}

/** `ref capture`: the ref as captured (fresh at its own version). */
export function captureRefOp(
  store: FsStore,
  o: { from: string; into: string; ttlMs: number; bounds: { maxBytes: number; maxLines: number }; body: string | null; writer: Writer },
): { json: { ok: true; session: string; ref: Record<string, unknown> }; ref: StoredRef; seq: number } {
  const { ref: r, event } = captureRef(store, o);
  return { json: { ok: true, session: r.target, ref: { ...refJson(r), state: 'fresh', current_version: r.source_version } }, ref: r, seq: event.seq };
}

/** `ref list`: the session's refs with their state now. */
export function listRefs(store: FsStore, id: string): { json: { ok: true; session: string; refs: Record<string, unknown>[] }; refs: RefNow[]; now: Date } {
  const now = store.clock();
  const refs = refsNow(store, id, now);
  return { json: { ok: true, session: id, refs: refs.map(nowJson) }, refs, now };
}

/** `ref render [--digest D]`: the wrappers the agent sees; REF_NOT_FOUND when a digest matches nothing. */
export function renderRefs(store: FsStore, id: string, digest?: string) {
  const now = store.clock();
  let refs = refsNow(store, id, now);
  if (digest !== undefined) {
    const d = digest.trim().toLowerCase();
    refs = refs.filter((r) => d !== '' && r.ref.digest.startsWith(d));
    if (refs.length === 0) fail(REF_NOT_FOUND, `no ref with digest ${JSON.stringify(digest)} in ${id}`, { session: id, digest });
  }
  const rendered = refs.map((r) => `${render(r.ref, now, r.current_version)}\n`).join('');
  return { ok: true as const, session: id, rendered, refs: refs.map((r) => ({ source: r.ref.source, digest: r.ref.digest, state: r.state, current_version: r.current_version })) };
}
