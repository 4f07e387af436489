// A generated agents' store for `history.import` (bench/cases/history-import.ts) and the
// SIGKILL tests (test/history.test.ts): Claude Code and Codex sessions in their real formats,
// made of the real fixtures' lines (test/fixtures/transcripts/{claude,codex}) with every uuid
// rewritten per session and per repetition, so each session holds distinct items and the
// metadata lines (api-request blobs, session_meta, ...) weigh what they weigh in real files.
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const FIX = join(ROOT, 'test', 'fixtures', 'transcripts');
const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export interface HistoryFixture {
  home: string;
  sessions: { agent: 'claude' | 'codex'; id: string; path: string }[];
  bytes: number;
}

interface Template {
  lines: string[];
  sessionId: string;
}

function template(agent: 'claude' | 'codex'): Template {
  const file = agent === 'claude' ? join(FIX, 'claude', 'claude-2.1.328-session.jsonl') : join(FIX, 'codex', 'codex-0.171.0-session.jsonl');
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
  const m = /"(?:sessionId|session_id)":"([0-9a-f-]{36})"/.exec(lines.join('\n'));
  if (!m) throw new Error(`no session id in ${file}`);
  return { lines, sessionId: m[1] };
}

const hex = (n: number, w: number): string => n.toString(16).padStart(w, '0').slice(-w);

/** The id of generated session `i` of an agent (a uuid: both readers' locate rules accept it). */
export const generatedSessionId = (agent: 'claude' | 'codex', i: number): string => `${agent === 'claude' ? 'c1' : 'c0'}${hex(i, 6)}-0000-4000-8000-${hex(i, 12)}`;

/**
 * Writes about `bytes` of transcripts as `sessions` sessions (half Claude, half Codex) under
 * `home` (the agents' default stores: ~/.claude/projects, ~/.codex/sessions).
 */
export function historyFixture(home: string, bytes: number, sessions: number): HistoryFixture {
  const perSession = Math.max(1, Math.floor(bytes / sessions));
  const tpl = { claude: template('claude'), codex: template('codex') };
  const out: HistoryFixture = { home, sessions: [], bytes: 0 };
  const claudeDir = join(home, '.claude', 'projects', '-home-u-proj');
  const codexDir = join(home, '.codex', 'sessions', '2026', '11', '30');
  fs.mkdirSync(claudeDir, { recursive: true });
  fs.mkdirSync(codexDir, { recursive: true });
  for (let i = 0; i < sessions; i++) {
    const agent = i % 2 === 0 ? 'claude' : 'codex';
    const t = tpl[agent];
    const id = generatedSessionId(agent, i);
    const map = new Map<string, string>();
    const parts: string[] = [];
    let size = 0;
    for (let rep = 0, n = 0; size < perSession; rep++) {
      map.clear();
      for (const line of t.lines) {
        // Codex's session_meta once per file: a repetition is another turn of the same session.
        if (rep > 0 && agent === 'codex' && line.includes('"type":"session_meta"')) continue;
        const text = line.replace(UUID_RE, (u) => {
          if (u === t.sessionId) return id;
          let v = map.get(u);
          if (!v) {
            v = `${hex(i, 8)}-${hex(rep, 4)}-4${hex(map.size, 3)}-8000-${hex(n++, 12)}`;
            map.set(u, v);
          }
          return v;
        });
        parts.push(text, '\n');
        size += Buffer.byteLength(text) + 1;
        if (size >= perSession && rep > 0) break;
      }
    }
    const path = agent === 'claude' ? join(claudeDir, `${id}.jsonl`) : join(codexDir, `rollout-2026-11-30T00-00-00-${id}.jsonl`);
    fs.writeFileSync(path, parts.join(''));
    out.sessions.push({ agent, id, path });
    out.bytes += size;
  }
  return out;
}
