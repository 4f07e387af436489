// The transcript readers baton ships, by agent (one file each, like the provider adapters).
// Safe on the hook path: the readers are pure functions over text and a few path rules.
import type { TranscriptReader } from './types.ts';

const READERS: ReadonlyMap<string, TranscriptReader> = new Map(([] as TranscriptReader[]).map((r) => [r.agent, r]));

/** The reader of an agent's transcripts, or undefined when baton has none for it. */
export function findReader(agent: string): TranscriptReader | undefined {
  return READERS.get(agent);
}

export const READER_AGENTS = [...READERS.keys()];
