// The `session` aspect (hooks.md): opens an episode at the start event (idempotently) and
// freezes what the start injected; closes it at the end event by the adapter's reason table
// and appends the closure to the frozen context. Never writes stdout, never exits 2.
import { pointerSummary } from '../store/projections.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { type HookEvent, type ProviderAdapter, outcomeOf } from '../providers/types.ts';
import { appendClosure, writeFrozenContext } from './contexts.ts';
import { type CloseResult, type OpenResult, closeEpisode, findOpen, openEpisode } from './episodes.ts';

export interface SessionAspectInput {
  store: FsStore;
  sessionId: string;
  adapter: ProviderAdapter;
  ev: HookEvent;
  writer: Writer;
  now: Date;
  /** What the start event injected (the pointer aspect's context as emitted), '' when nothing. */
  injected: string;
  injectedNote?: string;
}

export function sessionAtStart(i: SessionAspectInput): OpenResult {
  const dir = i.store.dir(i.sessionId);
  const res = openEpisode(
    i.store,
    i.sessionId,
    {
      provider: i.adapter.name,
      providerSessionId: i.ev.providerSessionId,
      source: i.ev.source ?? 'startup',
      transcriptPath: i.ev.transcriptPath,
      model: i.ev.model,
      freeze: (episode) =>
        writeFrozenContext(dir, {
          session: i.sessionId,
          episode,
          provider: i.adapter.name,
          providerSessionId: i.ev.providerSessionId,
          source: i.ev.source ?? 'startup',
          now: i.now,
          injected: i.injected,
          note: i.injectedNote,
        }),
    },
    i.writer,
    i.now,
  );
  if (res.contextError) throw res.contextError;
  return res;
}

export function sessionAtEnd(i: SessionAspectInput): CloseResult | null {
  if (!i.store.exists(i.sessionId)) return null;
  const reason = i.ev.reason ?? 'other';
  const res = closeEpisode(
    i.store,
    i.sessionId,
    (open) => findOpen({ v: 1, offset: 0, open }, i.adapter.name, i.ev.providerSessionId),
    reason,
    () => outcomeOf(i.adapter, reason),
    i.writer,
    i.now,
  );
  if (res) {
    const dir = i.store.dir(i.sessionId);
    appendClosure(dir, res.episode.context_file, {
      reason,
      outcome: res.outcome,
      durationMs: res.duration_ms,
      prompts: res.prompts,
      now: i.now,
      pointer: pointerSummary(dir),
    });
  }
  return res;
}
