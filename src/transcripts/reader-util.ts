// Small helpers the transcript readers share: directory listing for roots/list/locate
// (readdir and lstat only: no file is opened, a symlink is never taken for a file or a
// folder), JSON field access, the text of content blocks, and a bounded memory of tool calls
// (call id → name and path) kept in ParseState.own between parse runs.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import type { ParseState, RunMark } from './types.ts';

export const joinPath = join;

/** The names in a folder; none when it is missing or unreadable. */
export function dirEntries(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** A real folder (not a symlink to one). */
export function isDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A regular file (not a symlink to one). */
export function isFile(p: string): boolean {
  try {
    return fs.lstatSync(p).isFile();
  } catch {
    return false;
  }
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The texts of a content value: a string, or blocks/parts with `text`, joined by newlines. */
export function textOfBlocks(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const b of content) {
    if (typeof b === 'string') out.push(b);
    else if (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string') out.push((b as { text: string }).text);
  }
  return out.join('\n');
}

/** How many tool calls a reader remembers across runs (a result names its call by id only). */
export const MAX_REMEMBERED_CALLS = 256;

export interface RememberedCall {
  name: string;
  /** The file the call's input names (for a read: the readPath of its result). */
  path?: string;
}

/** Remembers a call by its id in state.own.calls, the oldest forgotten past the bound. */
export function rememberCall(state: ParseState, callId: string, call: RememberedCall): void {
  if (!callId) return;
  const calls = (state.own.calls ??= {}) as Record<string, RememberedCall>;
  calls[callId] = call;
  const keys = Object.keys(calls);
  for (let i = 0; i < keys.length - MAX_REMEMBERED_CALLS; i++) delete calls[keys[i]];
}

export function recalledCall(state: ParseState, callId: string): RememberedCall | undefined {
  return (state.own.calls as Record<string, RememberedCall> | undefined)?.[callId];
}

/** Runs a reader keeps in the session's meta (the cursor holds them): later ones fold into the last. */
export const MAX_RUNS = 64;

/** The run in progress, if the reader has seen one start. */
export const currentRun = (state: ParseState): RunMark | undefined => state.meta.runs?.at(-1);

/** A run starts at `line` (its first line with items); past MAX_RUNS it continues the last one. */
export function startRun(state: ParseState, line: number, at: string | null, source: string): RunMark {
  const runs = (state.meta.runs ??= []);
  const last = runs.at(-1);
  if (last && runs.length >= MAX_RUNS) {
    noteRunTime(state, at);
    return last;
  }
  const run: RunMark = { line, source, at, last: at, prompts: 0 };
  runs.push(run);
  return run;
}

/** A conversation record at `at` extends the run in progress. */
export function noteRunTime(state: ParseState, at: string | null): void {
  const r = currentRun(state);
  if (!r || !at) return;
  r.at ??= at;
  if (!r.last || at > r.last) r.last = at;
}
