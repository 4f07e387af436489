// `baton doctor` (hooks.md): one read-only pass over the store and the providers' settings —
// store size by kind, index health, corrupt or torn logs, episodes open and idle over 24 h,
// wiring, Node version, free disk, anything readable by others. Every problem comes with the
// command that fixes it. Writes nothing.
import * as fs from 'node:fs';
import { sessionCursors, sessionRefusals } from '../transcripts/capture.ts';
import { join } from 'node:path';
import { type IndexHealth, indexHealth } from '../index/health.ts';
import { CODEX_TRUST_HINT } from '../providers/codex-trust.ts';
import { PROVIDERS } from '../providers/index.ts';
import { type InstallContext, type WiringRow, wiring } from '../providers/install.ts';
import { shellQuote } from '../hooks/shell.ts';
import { mcpWiring } from '../mcp/install.ts';
import { LOG_FILE, scanLog } from '../store/log.ts';
import { contextMdSeq, readManifest } from '../store/projections.ts';
import { conflictsOf } from '../store/replica.ts';
import { type EpisodeIndex, foldEpisodeEvent } from '../hooks/episodes.ts';

export const IDLE_MS = 24 * 3600 * 1000;
const MIN_FREE_BYTES = 100 * 1024 * 1024;

export interface Problem {
  message: string;
  fix: string;
}

export interface DoctorReport {
  home: string;
  store_exists: boolean;
  sessions: number;
  sizes: { logs: number; prompts_in_logs: number; contexts: number; artifacts: number; index: number; other: number };
  index: IndexHealth;
  corrupt_logs: { session: string; line: number; reason: string }[];
  torn_logs: { session: string; bytes: number }[];
  /** Sessions whose manifest.json or context.md trail the log (WS202): normal after hook appends, rebuilt on the next read. */
  projections_behind: { session: string; manifest_seq: number | null; context_seq: number | null; last_seq: number }[];
  open_episodes: { session: string; episode: string; provider: string; idle_ms: number }[];
  /** Team mode: events this machine wrote after losing ownership, kept in conflicts/ (docs/team.md). */
  team_conflicts: { session: string; file: string; events: number }[];
  /** Lines of the agents' transcripts that capture or import skipped, counted by reason (transcripts.md). */
  transcript_skips: { session: string; agent: string; path: string; skipped: Record<string, number>; unknown_version: string | null }[];
  wiring: WiringRow[];
  node: { version: string; ok: boolean };
  disk: { free_bytes: number | null; ok: boolean };
  not_private: string[];
  problems: Problem[];
}

function sizeOf(path: string): number {
  let total = 0;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.size;
  for (const n of fs.readdirSync(path)) total += sizeOf(join(path, n));
  return total;
}

function walkModes(root: string, out: string[], limit = 50): void {
  const visit = (p: string): void => {
    if (out.length >= limit) return;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return;
    }
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(p);
    if (st.isDirectory()) for (const n of fs.readdirSync(p).sort()) visit(join(p, n));
  };
  visit(root);
}

export function nodeVersionOk(v: string): boolean {
  const [maj, min] = v.split('.').map(Number);
  return maj > 20 || (maj === 20 && min >= 19);
}

export function doctor(home: string, ctx: InstallContext, now: Date): DoctorReport {
  const r: DoctorReport = {
    home,
    store_exists: fs.existsSync(home),
    sessions: 0,
    sizes: { logs: 0, prompts_in_logs: 0, contexts: 0, artifacts: 0, index: 0, other: 0 },
    index: { present: false, ok: true, conflicts: [], problems: [], bytes: 0 },
    corrupt_logs: [],
    torn_logs: [],
    projections_behind: [],
    open_episodes: [],
    team_conflicts: [],
    transcript_skips: [],
    wiring: [],
    node: { version: process.versions.node, ok: nodeVersionOk(process.versions.node) },
    disk: { free_bytes: null, ok: true },
    not_private: [],
    problems: [],
  };
  const P = (message: string, fix: string) => r.problems.push({ message, fix });
  if (r.store_exists) {
    for (const n of fs.readdirSync(home)) {
      if (n === 'sessions') continue;
      const s = sizeOf(join(home, n));
      if (n.startsWith('baton.db') || n.startsWith('index')) r.sizes.index += s;
      else r.sizes.other += s;
    }
    const sdir = join(home, 'sessions');
    let ids: string[] = [];
    try {
      ids = fs.readdirSync(sdir).filter((n) => !n.startsWith('.'));
    } catch {}
    for (const id of ids.sort()) {
      const dir = join(sdir, id);
      if (!fs.statSync(dir).isDirectory()) continue;
      const names = fs.readdirSync(dir);
      // A folder without a log is no session (history import keeps a cursor there for a file that gave no item).
      if (names.includes(LOG_FILE)) r.sessions++;
      for (const n of names) {
        const s = sizeOf(join(dir, n));
        if (n.startsWith(LOG_FILE)) r.sizes.logs += s;
        else if (n === 'contexts') r.sizes.contexts += s;
        else if (n === 'artifacts') r.sizes.artifacts += s;
        else r.sizes.other += s;
      }
      const idx: EpisodeIndex = { v: 1, offset: 0, open: [] };
      let lastTs = '';
      const scan = scanLog(join(dir, LOG_FILE), (ev, raw) => {
        lastTs = ev.ts;
        if (ev.type === 'prompt.submitted') r.sizes.prompts_in_logs += Buffer.byteLength(raw) + 1;
        foldEpisodeEvent(idx, ev);
      });
      if (scan.corrupt) {
        r.corrupt_logs.push({ session: id, line: scan.corrupt.line, reason: scan.corrupt.reason });
        P(`session ${id}: events log corrupt at line ${scan.corrupt.line} (${scan.corrupt.reason}); writes are refused (WS201)`, `baton session verify ${shellQuote(id)}`);
      } else if (scan.torn) {
        r.torn_logs.push({ session: id, bytes: scan.torn.bytes });
        P(`session ${id}: a torn last line (${scan.torn.bytes} bytes) from a crash`, `baton session repair ${shellQuote(id)}`);
      }
      const manifestSeq = readManifest(dir)?.status.last_event_seq ?? null;
      const contextSeq = contextMdSeq(dir);
      if (!scan.corrupt && scan.lastSeq > 0 && (manifestSeq === null || manifestSeq < scan.lastSeq || contextSeq === null || contextSeq < scan.lastSeq)) {
        r.projections_behind.push({ session: id, manifest_seq: manifestSeq, context_seq: contextSeq, last_seq: scan.lastSeq });
      }
      for (const c of conflictsOf(dir)) {
        r.team_conflicts.push({ session: id, ...c });
        P(`session ${id}: ${c.events} event(s) written here after this machine lost ownership are kept in ${c.file}`, 'baton team status');
      }
      for (const c of sessionCursors(dir)) {
        if (!Object.keys(c.skipped).length && !c.unknown_version) continue;
        r.transcript_skips.push({ session: id, agent: c.agent, path: c.path, skipped: c.skipped, unknown_version: c.unknown_version ?? null });
        if (c.unknown_version) P(`session ${id}: ${c.path} is in ${c.agent} format version ${JSON.stringify(c.unknown_version)}, which this baton does not read (TR002)`, 'update baton (npm install -g baton)');
      }
      for (const f of sessionRefusals(dir)) {
        for (const [code, x] of Object.entries(f.refused)) {
          r.transcript_skips.push({ session: id, agent: f.agent, path: x.path, skipped: { [`refused ${code}`]: x.count }, unknown_version: null });
          if (code === 'TR001') P(`session ${id}: ${f.agent} named a transcript outside its store, or a link out of it, ${x.count} time(s), last ${x.path} at ${x.at}; not read (TR001)`, `keep ${f.agent}'s transcripts in its own folders, not behind a link out of them`);
        }
      }
      const idle = lastTs ? now.getTime() - Date.parse(lastTs) : 0;
      for (const e of idx.open) {
        r.open_episodes.push({ session: id, episode: e.episode, provider: e.provider, idle_ms: idle });
        if (idle > IDLE_MS) {
          P(
            `session ${id}: episode ${e.episode} (${e.provider}) is open and idle for ${Math.round(idle / 3600000)} h: no end event came`,
            `baton episode close ${shellQuote(id)} --episode ${e.episode} --reason other`,
          );
        }
      }
    }
    walkModes(home, r.not_private);
    if (r.not_private.length) P(`${r.not_private.length} path(s) under the store are readable or writable by others (e.g. ${r.not_private[0]})`, `chmod -R go-rwx ${shellQuote(home)}`);
    try {
      const st = fs.statfsSync(home);
      r.disk.free_bytes = Number(st.bavail) * Number(st.bsize);
      r.disk.ok = r.disk.free_bytes >= MIN_FREE_BYTES;
      if (!r.disk.ok) P(`only ${Math.round(r.disk.free_bytes / 1048576)} MiB free on the store's disk`, `free space on the disk holding ${home}`);
    } catch {}
  }
  try {
    r.index = indexHealth(home);
    if (r.index.bytes) r.sizes.index = Math.max(r.sizes.index, r.index.bytes);
    for (const p of r.index.problems) P(p.message, p.fix);
  } catch (e) {
    P(`index health could not be read: ${(e as Error).message}`, 'baton index rebuild');
  }
  for (const name of Object.keys(PROVIDERS)) {
    const rows = wiring(PROVIDERS[name], ctx);
    r.wiring.push(...rows);
    for (const row of rows) {
      const scope = row.scopes[0] ?? 'user';
      if (row.state === 'partial' && row.missing.some((m) => !m.includes('has no such event'))) {
        P(`${row.row}: partly wired, missing ${row.missing.join(', ')}`, `baton install ${name} --scope ${scope}`);
      } else if (row.scopes.length > 1) {
        // The provider merges every scope and runs each matching handler: each event would run twice.
        P(`${row.row}: wired in ${row.scopes.join(' and ')} scope, so every event runs the hook ${row.scopes.length} times`, `baton uninstall ${name} --scope ${row.scopes[0]}`);
      } else if (row.trusted === false) {
        P(`${row.row}: wired, not trusted: Codex skips untrusted hooks without a word`, CODEX_TRUST_HINT);
      } else if (row.state === 'foreign') {
        P(`${row.row}: wired to another baton (${row.foreign[0]})`, `baton install ${name} --scope ${row.foreign[0].split(' ')[0]} --force`);
      }
    }
    // The MCP server (mcp.md): an earlier baton's entry runs a binary that may be gone.
    const mcp = mcpWiring(name, ctx);
    if (mcp.state === 'partial') P(`${mcp.row}: ${mcp.missing[0]}`, `baton install ${name} --scope ${mcp.missing[0].split(':')[0]} --aspects mcp --force`);
  }
  if (!r.node.ok) P(`Node ${r.node.version} is older than baton needs (>= 20.19)`, 'install Node 20.19 or newer');
  return r;
}
