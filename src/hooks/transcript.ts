// The hooks' transcript aspect (transcripts.md, "Capture from the hooks"): at turn end, before
// a compaction, at the session end and as a catch-up at the next start, the items the agent's
// transcript gained since the last capture go into the session. Bounded (one CAPTURE_BUDGET
// per run, the rest at the next capture), read-only on the agent's files, and failing open:
// whatever goes wrong is one stderr line, never a broken agent. The prompt hook never comes here.
import type { HookEvent, ProviderAdapter } from '../providers/types.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { type CaptureResult, captureEntries, captureOnce, recordRefusal } from '../transcripts/capture.ts';
import { findReader } from '../transcripts/index.ts';

export interface TranscriptRun {
  result: CaptureResult | null;
  /** Lines for stderr (a refusal, skipped lines, an unknown format version). */
  lines: string[];
}

/**
 * Whether this process's capture is one to make the bundle's V8 code cache from (boot.ts asks
 * after the event): a capture that found its cursor, the path of every turn end but a
 * transcript's first. The first capture of a transcript (no cursor, no items.v2.idx, recent.json
 * rebuilt) runs functions later ones never do and skips some they all run; a cache made from it
 * is larger (more to deserialize on every capture) and lacks functions every later capture then
 * compiles lazily. Measured (perf stat task-clock, interleaved, 27 pairs of steady Stops): ~3 ms
 * less CPU per capture with the steady run's cache (docs/adr/0074).
 */
let steady = false;
export const codeCacheWorthy = (): boolean => steady;

export function transcriptAspect(opts: { store: FsStore; sessionId: string; adapter: ProviderAdapter; ev: HookEvent; writer: Writer; now: Date; env: NodeJS.ProcessEnv }): TranscriptRun {
  const { adapter, ev } = opts;
  const reader = findReader(adapter.name);
  if (!reader) return { result: null, lines: [] };
  const readerEnv = { home: opts.env.HOME || '/', env: opts.env };
  if (reader.format === 'payload') {
    // opencode and Kilo: baton's plugin hands the new messages over in the payload.
    if (ev.payload?.transcript_items === undefined) return { result: null, lines: [] };
    const result = captureEntries({ store: opts.store, sessionId: opts.sessionId, reader, agentSession: ev.providerSessionId, writer: opts.writer, now: opts.now, readerEnv, workspace: ev.cwd }, ev.payload.transcript_items, { cwd: ev.cwd ?? undefined });
    return { result, lines: reportLines(adapter, 'the hook payload', result) };
  }
  const path = ev.transcriptPath ?? reader.locate(readerEnv, ev.providerSessionId, ev.cwd);
  // None named and none where the agent keeps them: a new session has no transcript yet.
  if (!path) return { result: null, lines: [] };
  const result = captureOnce({
    store: opts.store,
    sessionId: opts.sessionId,
    reader,
    path,
    agentSession: ev.providerSessionId,
    writer: opts.writer,
    now: opts.now,
    readerEnv,
    workspace: ev.cwd,
    final: ev.kind === 'end',
  });
  steady = result.fromCursor === true;
  // A transcript not written yet is nothing to capture; the start's catch-up is opportunistic
  // (the turn end and the end say what went wrong).
  if (result.refused && (ev.kind === 'start' || result.refused.code === 'TR003')) return { result, lines: [] };
  if (result.refused?.code === 'TR001') recordRefusal(opts.store.dir(opts.sessionId), adapter.name, 'TR001', path, opts.now.toISOString());
  return { result, lines: reportLines(adapter, path, result) };
}

function reportLines(adapter: ProviderAdapter, source: string, result: CaptureResult): string[] {
  const lines: string[] = [];
  if (result.refused) lines.push(`baton: hook transcript: ${result.refused.code} ${result.refused.message}`);
  if (result.unknownVersion) lines.push(`baton: hook transcript: TR002 ${source} is in ${adapter.title} format version ${JSON.stringify(result.unknownVersion)}, which this baton does not read; skipped`);
  if (result.skips.length) {
    const reasons = [...new Set(result.skips.map((s) => s.reason))].join(', ');
    lines.push(`baton: hook transcript: TR004 skipped ${result.skips.length} line(s) of ${source} (${reasons}); see baton doctor`);
  }
  return lines;
}
