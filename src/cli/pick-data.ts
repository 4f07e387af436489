// What the picker reads (`baton pick`): the listing from the index in pages (the first screen
// first, the rest after the first paint), each session's extras (pointer text, first prompt,
// agents seen) and preview (pointer, last turns) lazily and only for the rows that need them,
// and full-text search over items. Read-only: never writes a session folder (the index may
// catch up, as every reader's does), and every read of one session's files is tolerant — a
// missing or odd file gives less to show, never an error.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { join } from '../core/path.ts';
import { fileURLToPath } from 'node:url';
import type { TranscriptItem } from '../core/transcript.ts';
import { redactText } from '../core/redact.ts';
import { type IndexIo, type ListedSession, listSessions, searchSessions } from '../index/api.ts';
import { LOG_FILE } from '../store/log.ts';
import { pointerSummary } from '../store/projections.ts';
import { type Recent, readRecent } from '../transcripts/capture.ts';
import type { PickHit, PickRow } from './pick-model.ts';

/** How much of a log's start is read for its first prompt and early agents. */
const HEAD_BYTES = 32 * 1024;

export function rowOf(s: ListedSession): PickRow {
  return {
    id: s.id,
    title: s.title,
    workspace: s.workspace,
    git_root: s.git_root,
    last_touched_at: s.last_touched_at,
    pointer_status: s.pointer_status,
    agents: s.open_episode?.provider ? [s.open_episode.provider] : [],
    pointer_text: null,
    first_prompt: null,
    extras: false,
  };
}

/** One page of the listing, newest first, after `after` (keyset) when given. */
export function listPage(home: string, cwd: string | null, limit: number, after: PickRow | null, io: IndexIo = {}): PickRow[] {
  const { sessions } = listSessions(home, { cwd, limit, ...(after ? { after: { last_touched_at: after.last_touched_at, id: after.id } } : {}) }, io);
  return sessions.map(rowOf);
}

/** The first prompt and the agents seen in the first HEAD_BYTES of a log (episodes opened, items captured). */
export function logHead(path: string): { firstPrompt: string | null; agents: string[] } {
  const agents: string[] = [];
  let firstPrompt: string | null = null;
  let text: string;
  try {
    const fd = fs.openSync(path, 'r');
    try {
      const buf = Buffer.allocUnsafe(HEAD_BYTES);
      const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
      text = buf.toString('utf8', 0, n);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return { firstPrompt, agents };
  }
  const lines = text.split('\n');
  if (!text.endsWith('\n')) lines.pop(); // the cut line
  for (const line of lines) {
    if (!line.includes('"episode.opened"') && !line.includes('"prompt.submitted"') && !line.includes('"transcript.item"')) continue;
    let ev: { type?: string; payload?: Record<string, unknown> };
    try {
      ev = JSON.parse(line);
    } catch {
      continue;
    }
    const p = ev.payload ?? {};
    if (ev.type === 'episode.opened' && typeof p.provider === 'string' && p.provider) agents.push(p.provider);
    if (ev.type === 'prompt.submitted' && firstPrompt === null && typeof p.text === 'string' && p.text.trim()) firstPrompt = p.text;
    if (ev.type === 'transcript.item') {
      const it = p as unknown as TranscriptItem;
      if (typeof it.agent === 'string') agents.push(it.agent);
      if (firstPrompt === null && it.role === 'user' && it.kind === 'message' && typeof it.text === 'string' && it.text.trim()) firstPrompt = it.text;
    }
  }
  return { firstPrompt: firstPrompt === null ? null : redactText(firstPrompt), agents };
}

const uniq = (xs: readonly string[]): string[] => [...new Set(xs.filter(Boolean))];

/** Fills a row's extras in place (pointer text, first prompt, every agent seen); once per row. */
export function loadExtras(home: string, r: PickRow): void {
  if (r.extras) return;
  const dir = join(home, 'sessions', r.id);
  const pointer = pointerSummary(dir);
  const head = logHead(join(dir, LOG_FILE));
  const recent = readRecent(dir);
  r.pointer_text = pointer?.text ?? null;
  r.first_prompt = head.firstPrompt;
  r.agents = uniq([...head.agents, ...r.agents, ...recentAgents(recent)]);
  r.extras = true;
}

function recentAgents(r: Recent | null): string[] {
  if (!r) return [];
  return [...r.users, ...r.assistants].sort((a, b) => a.seq - b.seq).map((l) => l.agent).concat(r.last_agent ? [r.last_agent] : []);
}

/** What the preview pane shows of a session: its pointer and its last turns (recent.json, never a fold of the log). */
export interface Preview {
  pointer: { status: string; revision: number; text: string | null } | null;
  /** Oldest first: the last user requests and assistant conclusions. */
  turns: { seq: number; at: string; agent: string; role: 'user' | 'assistant'; text: string }[];
  files: string[];
}

export function loadPreview(home: string, id: string): Preview {
  const dir = join(home, 'sessions', id);
  const recent = readRecent(dir);
  const turns: Preview['turns'] = [];
  for (const l of recent?.users ?? []) turns.push({ ...l, role: 'user' });
  for (const l of recent?.assistants ?? []) turns.push({ ...l, role: 'assistant' });
  turns.sort((a, b) => a.seq - b.seq);
  return { pointer: pointerSummary(dir), turns, files: (recent?.files ?? []).map((f) => f.path).reverse() };
}

/**
 * Full-text search over the session's items and events (the index's searchSessions): one
 * hit per session, the best, in rank order. Rows come from the listing when it has the
 * session, else from the hit itself (a session of another directory never shows: the search
 * is filtered to the same workspace).
 */
export function searchRows(home: string, query: string, cwd: string | null, known: ReadonlyMap<string, PickRow>, io: IndexIo = {}): PickHit[] {
  const { hits } = searchSessions(home, query, { cwd, limit: 200 }, io);
  const out: PickHit[] = [];
  const seen = new Set<string>();
  for (const h of hits) {
    if (seen.has(h.session)) continue;
    seen.add(h.session);
    const row: PickRow = known.get(h.session) ?? {
      id: h.session,
      title: h.title,
      workspace: h.workspace,
      git_root: null,
      last_touched_at: h.at,
      pointer_status: null,
      agents: h.agent ? [h.agent] : [],
      pointer_text: null,
      first_prompt: null,
      extras: false,
    };
    out.push({ row, seq: h.seq, snippet: h.snippet, at: h.at, agent: h.agent, role: h.role, kind: h.kind });
  }
  return out;
}

const SAFE_ARG = /^[\w@%+=:,./-]+$/;
const shellArg = (s: string): string => (SAFE_ARG.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command that continues a session, naming the home when it was given on the command line. */
export function continueCommand(id: string, homeFlag: string | undefined): string {
  return `baton${homeFlag ? ` --home ${shellArg(homeFlag)}` : ''} continue ${id}`;
}

/**
 * What Enter does with the chosen session: `baton continue ID` run on this terminal (the
 * picker's screen is gone by then), its exit code the picker's. A continue that refuses (no
 * agent on PATH, a held lease) says why on stderr as the command does.
 */
export function continueChosen(_home: string, id: string, homeFlag: string | undefined): number {
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'baton.cjs');
  const r = spawnSync(process.execPath, [bin, ...(homeFlag ? ['--home', homeFlag] : []), 'continue', id], { stdio: 'inherit' });
  return r.status ?? 1;
}
