// The transcript benches' fixture (transcripts.md, "What is measured": search.items, and
// index.rebuild.items of bench.md): a store of N sessions × I `transcript.item` events (after
// each session's `session.created`), written straight to events.jsonl with the store's own
// line encoder, so every chain is valid; seeded and deterministic, never committed. Items of
// the nine agents (one agent per session), in turns the way readers make them: a user prompt,
// an assistant answer (sometimes reasoning first), tool calls naming workspace files and
// their results. Shared by the cases of one run through a folder in the system temp dir
// (generated once per size, marked complete, removed when older than an hour).
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventInput, encodeEvent } from '../src/core/events.ts';
import { TRANSCRIPT_AGENTS, type TranscriptItem } from '../src/core/transcript.ts';
import { prng, randInt } from './lib.ts';

export interface ItemsFixture {
  home: string;
  sessions: number;
  /** transcript.item events in the store (every session also has its session.created). */
  items: number;
  /** Every event (items plus one session.created per session). */
  events: number;
  /** Words of mid frequency: queries that hit a few hundred to a few thousand items. */
  queryWords: string[];
  /** Files tool calls name often enough to be looked for (workspace-relative), with a word of their path. */
  queryFiles: { file: string; word: string }[];
}

const SEED = 0x17e5;
const VOCAB = 8000;
const FILES_PER_WORKSPACE = 300;
const MODELS: Record<string, string> = {
  claude: 'claude-opus-5-5',
  codex: 'gpt-5.5-codex',
  gemini: 'gemini-3-pro',
  qwen: 'qwen3-coder-plus',
  copilot: 'gpt-5.5',
  droid: 'claude-sonnet-5',
  opencode: 'kimi-k3',
  kilo: 'glm-5',
  pi: 'claude-haiku-5',
};
const FILE_TOOLS = ['Read', 'Edit', 'Write'];

function vocabulary(rng: () => number): string[] {
  const out = new Set<string>();
  const syll = ['ba', 'ce', 'di', 'fo', 'gu', 'ha', 'je', 'ki', 'lo', 'mu', 'na', 'pe', 'ri', 'so', 'tu', 'vex', 'wal', 'yor', 'zin', 'qua', 'plo', 'stri'];
  while (out.size < VOCAB) {
    let w = '';
    const n = randInt(rng, 2, 4);
    for (let i = 0; i < n; i++) w += syll[Math.floor(rng() * syll.length)];
    out.add(w);
  }
  return [...out];
}

function sentence(rng: () => number, vocab: string[], words: number): string {
  const parts: string[] = [];
  // Zipf-like: a few words very common, most rare.
  for (let i = 0; i < words; i++) parts.push(vocab[Math.floor(vocab.length * rng() ** 2.5)]);
  return parts.join(' ');
}

export function itemsFixtureDir(sessions: number, itemsPer: number): string {
  return join(tmpdir(), `baton-bench-items-${sessions}x${itemsPer}-v1`);
}

function sweepOld(): void {
  try {
    for (const n of fs.readdirSync(tmpdir())) {
      if (!n.startsWith('baton-bench-items-')) continue;
      const p = join(tmpdir(), n);
      if (Date.now() - fs.statSync(p).mtimeMs > 3600_000) fs.rmSync(p, { recursive: true, force: true });
    }
  } catch {}
}

/** The fixture of that size: generated on first use, reused by the other cases of the run. */
export function itemsFixture(sessions: number, itemsPer: number): ItemsFixture {
  const rng = prng(SEED);
  const vocab = vocabulary(rng);
  const workspaces = Array.from({ length: 40 }, (_, i) => `/work/bench/items-project-${i}`);
  // Files: src/<word>/<word>.ts, the same relative set in every workspace; the first ones named most.
  const files = Array.from({ length: FILES_PER_WORKSPACE }, (_, i) => `src/${vocab[3000 + i]}/${vocab[4000 + i]}.ts`);
  const queryWords = [300, 450, 600, 900, 1200, 1600, 2100, 2800].map((r) => vocab[r]);
  const queryFiles = [2, 9, 25, 60].map((i) => ({ file: files[i], word: vocab[4000 + i] }));
  const root = itemsFixtureDir(sessions, itemsPer);
  const home = join(root, 'home');
  const fx: ItemsFixture = { home, sessions, items: sessions * itemsPer, events: sessions * (itemsPer + 1), queryWords, queryFiles };
  if (fs.existsSync(join(root, 'complete'))) return fx;
  sweepOld();
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(join(home, 'sessions'), { recursive: true, mode: 0o700 });
  const t0 = Date.UTC(2026, 9, 1);
  for (let s = 0; s < sessions; s++) {
    const agent = TRANSCRIPT_AGENTS[s % TRANSCRIPT_AGENTS.length];
    const agentSession = `${agent}-${s.toString(16).padStart(8, '0')}-${Math.floor(rng() * 2 ** 32).toString(16)}`;
    const id = `bench-items-${s.toString(36).padStart(4, '0')}-${Math.floor(rng() * 36 ** 6).toString(36)}`;
    const dir = join(home, 'sessions', id);
    fs.mkdirSync(dir, { mode: 0o700 });
    let t = t0 + Math.floor(rng() * 50 * 86400_000);
    let h = '';
    let seq = 0;
    const lines: string[] = [];
    const put = (e: EventInput): void => {
      seq++;
      t += randInt(rng, 200, 90_000);
      const enc = encodeEvent(seq, new Date(t).toISOString(), e, h);
      h = enc.h;
      lines.push(enc.line);
    };
    const cwd = workspaces[Math.floor(rng() * workspaces.length)];
    put({
      type: 'session.created',
      surface: `hook:${agent}`,
      actor: 'system',
      payload: { title: sentence(rng, vocab, randInt(rng, 2, 6)), workspace: { cwd, git_root: cwd }, allowed_runtimes: ['cli', 'hook'], created_by: `hook:${agent}` },
    });
    let n = 0;
    const item = (it: Omit<TranscriptItem, 'agent' | 'agent_session' | 'item_id' | 'at'>): void => {
      if (n >= itemsPer) return;
      n++;
      const payload: TranscriptItem = { agent, agent_session: agentSession, item_id: `it-${s}-${n}`, at: new Date(t + 1).toISOString(), ...it };
      const actor = it.role === 'user' ? 'user' : it.role === 'system' ? 'system' : 'agent';
      put({ type: 'transcript.item', surface: `hook:${agent}`, actor, payload: payload as unknown as Record<string, unknown> });
    };
    const model = MODELS[agent];
    let call = 0;
    while (n < itemsPer) {
      item({ role: 'user', kind: 'message', text: sentence(rng, vocab, randInt(rng, 5, 40)) });
      if (rng() < 0.2) item({ role: 'assistant', kind: 'reasoning', text: sentence(rng, vocab, randInt(rng, 10, 60)), model });
      const tools = randInt(rng, 0, 3);
      for (let k = 0; k < tools; k++) {
        const callId = `call-${s}-${++call}`;
        if (rng() < 0.65) {
          const name = FILE_TOOLS[Math.floor(rng() * FILE_TOOLS.length)];
          const file = files[Math.floor(FILES_PER_WORKSPACE * rng() ** 2)];
          item({ role: 'assistant', kind: 'tool_call', text: '', tool: { name, call_id: callId, input: { file_path: `${cwd}/${file}` } }, files: [file], model });
          item({ role: 'tool', kind: 'tool_result', text: sentence(rng, vocab, randInt(rng, 10, 70)), tool: { name, call_id: callId } });
        } else {
          const command = `npm test -- ${vocab[Math.floor(vocab.length * rng() ** 2.5)]}`;
          item({ role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'Bash', call_id: callId, input: { command } }, model });
          item({ role: 'tool', kind: 'tool_result', text: sentence(rng, vocab, randInt(rng, 5, 50)), tool: { name: 'Bash', call_id: callId } });
        }
      }
      item({ role: 'assistant', kind: 'message', text: sentence(rng, vocab, randInt(rng, 10, 80)), model, usage: { input: randInt(rng, 100, 90_000), output: randInt(rng, 10, 2000) } });
    }
    fs.writeFileSync(join(dir, 'events.jsonl'), lines.join(''), { mode: 0o600 });
  }
  fs.writeFileSync(join(root, 'complete'), '');
  return fx;
}
