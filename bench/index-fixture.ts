// The index benches' fixture (bench.md: index.rebuild, index.list, index.search): a store of
// N sessions × E events written straight to events.jsonl with the store's own line encoder
// (chained like real logs), seeded and deterministic, never committed. Shared by the three
// index cases through a folder in the system temp dir (generated once per size, marked
// complete, removed when older than an hour).
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventInput, encodeEvent } from '../src/core/events.ts';
import { prng, randInt } from './lib.ts';

export interface IndexFixture {
  home: string;
  sessions: number;
  events: number;
  workspaces: string[];
  /** Words of mid frequency: search queries that hit a few hundred to a few thousand events. */
  queryWords: string[];
}

const SEED = 0x1d3e;
const VOCAB = 6000;

function vocabulary(rng: () => number): string[] {
  const out = new Set<string>();
  const syll = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'dor', 'fen', 'gal', 'hex', 'jun', 'bra', 'cle', 'tor', 'wix'];
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

export function fixtureDir(sessions: number, eventsPer: number): string {
  return join(tmpdir(), `baton-bench-index-${sessions}x${eventsPer}-v1`);
}

function sweepOld(): void {
  try {
    for (const n of fs.readdirSync(tmpdir())) {
      if (!n.startsWith('baton-bench-index-')) continue;
      const p = join(tmpdir(), n);
      if (Date.now() - fs.statSync(p).mtimeMs > 3600_000) fs.rmSync(p, { recursive: true, force: true });
    }
  } catch {}
}

/** The fixture of that size: generated on first use, reused by the other index cases of the run. */
export function indexFixture(sessions: number, eventsPer: number): IndexFixture {
  const rng = prng(SEED);
  const vocab = vocabulary(rng);
  const workspaces = Array.from({ length: 40 }, (_, i) => `/work/bench/project-${i}`);
  const queryWords = [200, 350, 500, 800, 1100, 1500, 2000, 2600].map((r) => vocab[r]);
  const root = fixtureDir(sessions, eventsPer);
  const home = join(root, 'home');
  const fx: IndexFixture = { home, sessions, events: sessions * eventsPer, workspaces, queryWords };
  if (fs.existsSync(join(root, 'complete'))) return fx;
  sweepOld();
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(join(home, 'sessions'), { recursive: true, mode: 0o700 });
  const t0 = Date.UTC(2026, 9, 1);
  for (let s = 0; s < sessions; s++) {
    const id = `bench-${s.toString(36).padStart(4, '0')}-${Math.floor(rng() * 36 ** 6).toString(36)}`;
    const dir = join(home, 'sessions', id);
    fs.mkdirSync(dir, { mode: 0o700 });
    let t = t0 + Math.floor(rng() * 50 * 86400_000);
    let h = '';
    let seq = 0;
    const lines: string[] = [];
    const put = (e: EventInput): void => {
      seq++;
      t += randInt(rng, 100, 120_000);
      const enc = encodeEvent(seq, new Date(t).toISOString(), e, h);
      h = enc.h;
      lines.push(enc.line);
    };
    const cwd = workspaces[Math.floor(rng() * workspaces.length)];
    put({
      type: 'session.created',
      surface: 'cli',
      actor: 'user',
      payload: { title: sentence(rng, vocab, randInt(rng, 2, 6)), workspace: { cwd, git_root: cwd }, allowed_runtimes: ['cli', 'hook'], created_by: 'cli' },
    });
    let episode = 0;
    let open = false;
    let rev = 0;
    while (seq < eventsPer) {
      const r = rng();
      if (r < 0.36) {
        put({ type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text: sentence(rng, vocab, randInt(rng, 8, 40)), tags: [] } });
      } else if (r < 0.52) {
        put({ type: 'prompt.submitted', surface: 'hook:claude', actor: 'user', payload: { episode: `ep-${episode}`, text: sentence(rng, vocab, randInt(rng, 5, 50)), digest: h + h } });
      } else if (r < 0.55) {
        put({ type: 'artifact.added', surface: 'cli', actor: 'agent', payload: { path: `${vocab[Math.floor(rng() * VOCAB)]}.md`, sha256: h + h } });
      } else if (r < 0.67) {
        put({ type: 'lock.renewed', surface: 'cli', actor: 'user', payload: { lease_until: new Date(t + 600_000).toISOString() } });
      } else if (r < 0.8) {
        rev++;
        put({ type: 'pointer.published', surface: 'cli', actor: 'agent', payload: { revision: rev, generation: `g-${h}`, status: rng() < 0.5 ? 'CLEAN' : 'DIRTY', previous_revision: rev - 1 } });
      } else if (r < 0.86) {
        if (open) put({ type: 'episode.closed', surface: 'hook:claude', actor: 'system', payload: { episode: `ep-${episode}`, reason: 'clear', outcome: 'closed', duration_ms: 1000, prompts: 3 } });
        else {
          episode++;
          put({ type: 'episode.opened', surface: 'hook:claude', actor: 'system', payload: { episode: `ep-${episode}`, provider: 'claude', provider_session_id: `ps-${s}-${episode}`, source: 'startup', context_file: `contexts/ep-${episode}.md` } });
        }
        open = !open;
      } else {
        put({ type: 'x.bench.tool', surface: 'hook:claude', actor: 'agent', payload: { tool: 'shell', exit: randInt(rng, 0, 2), ms: randInt(rng, 1, 9000) } });
      }
    }
    fs.writeFileSync(join(dir, 'events.jsonl'), lines.join(''), { mode: 0o600 });
  }
  fs.writeFileSync(join(root, 'complete'), '');
  return fx;
}
