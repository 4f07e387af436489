// The transcript readers baton ships, by agent (one file each, like the provider adapters).
// Safe on the hook path: the readers are pure functions over text and a few path rules.
import { claudeReader } from './claude.ts';
import { codexReader } from './codex.ts';
import { copilotReader } from './copilot.ts';
import { droidReader } from './droid.ts';
import { geminiReader } from './gemini.ts';
import { kiloReader } from './kilo.ts';
import { opencodeReader } from './opencode.ts';
import { piReader } from './pi.ts';
import { qwenReader } from './qwen.ts';
import type { TranscriptReader } from './types.ts';

const READERS: ReadonlyMap<string, TranscriptReader> = new Map(
  ([claudeReader, codexReader, geminiReader, qwenReader, copilotReader, droidReader, opencodeReader, kiloReader, piReader] as TranscriptReader[]).map((r) => [r.agent, r]),
);

/** The reader of an agent's transcripts, or undefined when baton has none for it. */
export function findReader(agent: string): TranscriptReader | undefined {
  return READERS.get(agent);
}

export const READER_AGENTS = [...READERS.keys()];
