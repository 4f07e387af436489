// The export format's rules (exchange.md), pure: what an export holds, how an event is made
// shareable (redactions, no local paths, prompts only when asked), what an import accepts.
// No I/O here: export.ts and import.ts read and write; this decides.
import { fail } from '../core/errors.ts';
import { ACTORS, type Actor, type StoredEvent, checkEventType, isSurface } from '../core/events.ts';
import { sha256Hex } from '../core/hash.ts';
import { itemPayloadProblem } from '../core/transcript.ts';
import { REDACTED, redactValue } from '../core/redact.ts';
import { presentEvent } from '../core/session.ts';

/** The manifest entry every baton export carries; its sha256 is the export's digest. */
export const EXPORT_MANIFEST = 'baton-export.json';
export const EXPORT_FORMAT = 'baton-export';
export const EXPORT_VERSION = 1;
export type Layout = 'baton' | 'world-session-v1';

/** Import limits (exchange.md): entries; decompressed = 10 × the archive's limit (--max-size, default 1 GiB). */
export const MAX_ENTRIES = 100_000;
export const BOMB_FACTOR = 10;
/** The manifest is read whole: a manifest bigger than this is not one of ours. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

export interface ExportEntry {
  name: string;
  size: number;
  sha256: string;
}

export interface ExportManifest {
  format: typeof EXPORT_FORMAT;
  version: number;
  layout: Layout;
  origin_id: string;
  title: string;
  exported_at: string;
  baton_version: string;
  /** The origin's workspace without its path: the folder's name and a hash of its real path. */
  workspace: AnonymousWorkspace | null;
  events: number;
  last_seq: number;
  /** --force on a corrupt log: only the verified prefix was exported. */
  partial: { verified_to_seq: number; corrupt_line: number; reason: string } | null;
  include: { contexts: boolean; prompts: boolean };
  /** Every other entry of the archive, with its size and sha256. */
  entries: ExportEntry[];
}

export interface AnonymousWorkspace {
  name: string;
  hash: string;
  git_branch?: string;
}

export function refuse(message: string, details: Record<string, unknown> = {}): never {
  return fail('WS403', message, details);
}

/** The workspace as an export shows it: `{name, hash}` (exchange.md). */
export function anonymousWorkspace(ws: { cwd?: unknown; git_branch?: unknown } | null | undefined): AnonymousWorkspace | null {
  if (!ws || typeof ws.cwd !== 'string') return null;
  const parts = ws.cwd.split(/[\\/]/).filter(Boolean);
  const out: AnonymousWorkspace = { name: parts[parts.length - 1] ?? '', hash: sha256Hex(ws.cwd).slice(0, 16) };
  if (typeof ws.git_branch === 'string') out.git_branch = ws.git_branch;
  return out;
}

export interface ShareRules {
  /** seq -> `session redact` patterns (SessionView.redactions). */
  redactions: Map<number, string[]>;
  /** Local path prefixes and what replaces each, longest first (workspace, git root, home). */
  paths: { prefix: string; as: string }[];
  prompts: boolean;
  /** The title the session was created with: what a title taken from a prompt becomes when prompts stay home. */
  createdTitle: string;
  /** sha256 of an artifact's local bytes -> sha256 of the redacted bytes the export ships. */
  artifactSha?: Map<string, string>;
}

/**
 * Path prefixes to rewrite: the workspace and its git root become `<workspace>`, the home `~`,
 * and `extra` (the CLI passes this node and this baton, which commands in frozen contexts name).
 */
export function pathRules(ws: { cwd?: unknown; git_root?: unknown } | null, home: string | null, extra: ShareRules['paths'] = []): ShareRules['paths'] {
  const out: ShareRules['paths'] = extra.filter((p) => p.prefix.length > 1);
  if (ws && typeof ws.cwd === 'string' && ws.cwd.length > 1) out.push({ prefix: ws.cwd, as: '<workspace>' });
  if (ws && typeof ws.git_root === 'string' && ws.git_root.length > 1 && ws.git_root !== ws.cwd) out.push({ prefix: ws.git_root, as: '<workspace-root>' });
  if (home && home.length > 1) out.push({ prefix: home, as: '~' });
  return out.sort((a, b) => b.prefix.length - a.prefix.length);
}

export function rewritePaths(s: string, paths: ShareRules['paths']): string {
  let out = s;
  for (const p of paths) if (out.includes(p.prefix)) out = out.split(p.prefix).join(p.as);
  return out;
}

function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = mapStrings(x, f);
    return o;
  }
  return v;
}

/**
 * An event as it leaves the machine: `session redact` patterns and the default secret patterns
 * applied (and the patterns themselves hidden), the workspace as `{name, hash}`, local paths rewritten, prompt text dropped unless
 * asked for (its digest and length stay). seq, ts, type, surface and actor are kept.
 */
export function shareEvent(ev: StoredEvent, rules: ShareRules): StoredEvent {
  const shown = presentEvent(ev, rules.redactions);
  let payload = redactValue(shown.payload);
  if (ev.type === 'session.created' && payload.workspace) {
    payload = { ...payload, workspace: anonymousWorkspace(payload.workspace as { cwd?: unknown }) };
  } else if (ev.type === 'session.resumed' && 'workspace_override' in payload) {
    const { workspace_override: _gone, ...rest } = payload;
    payload = rest;
  } else if (ev.type === 'session.archived' && 'target_path' in payload) {
    const { target_path: _gone, ...rest } = payload;
    payload = rest;
  } else if (ev.type === 'context.rewritten' && typeof payload.pattern === 'string') {
    // The pattern names what it hides; the events it names went out with it applied.
    payload = { ...payload, pattern: REDACTED };
  } else if (ev.type === 'session.titled' && !rules.prompts && payload.from === 'prompt') {
    // A title a hook took from the first prompt is that prompt's text: it stays home with the prompts.
    payload = { ...payload, title: rules.createdTitle };
  } else if (ev.type === 'prompt.submitted' && !rules.prompts && typeof payload.text === 'string') {
    payload = { ...payload, text: '', truncated: true, original_bytes: typeof payload.original_bytes === 'number' ? payload.original_bytes : Buffer.byteLength(payload.text) };
  }
  if (rules.artifactSha?.size && ev.type.startsWith('artifact.')) {
    // A redacted artifact ships other bytes: its events name the digest of what ships.
    const map = rules.artifactSha;
    const swapped: Record<string, unknown> = { ...payload };
    for (const k of ['sha256', 'sha256_new', 'sha256_old']) if (typeof swapped[k] === 'string' && map.has(swapped[k] as string)) swapped[k] = map.get(swapped[k] as string);
    payload = swapped;
  }
  if (rules.paths.length) payload = mapStrings(payload, (s) => rewritePaths(s, rules.paths)) as Record<string, unknown>;
  return { ...ev, payload };
}

/** An event read back from an export, checked field by field; `where` names it in refusals. */
export function checkImportedEvent(raw: unknown, where: string): Omit<StoredEvent, 'h'> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) refuse(`${where}: not an event object`, { entry: where });
  const e = raw as Record<string, unknown>;
  if (!Number.isInteger(e.seq) || (e.seq as number) < 1) refuse(`${where}: seq must be a positive integer`, { entry: where });
  if (typeof e.ts !== 'string' || !Number.isFinite(Date.parse(e.ts))) refuse(`${where}: ts is not a timestamp`, { entry: where });
  if (typeof e.type !== 'string') refuse(`${where}: no type`, { entry: where });
  try {
    checkEventType(e.type as string);
  } catch (err) {
    refuse(`${where}: ${(err as Error).message}`, { entry: where });
  }
  if (typeof e.surface !== 'string' || !isSurface(e.surface)) refuse(`${where}: surface ${JSON.stringify(e.surface)} is not one of cli, hook:<provider>, mcp, api, web, ide-skill`, { entry: where });
  if (!ACTORS.includes(e.actor as Actor)) refuse(`${where}: actor must be user, agent or system`, { entry: where });
  if (!e.payload || typeof e.payload !== 'object' || Array.isArray(e.payload)) refuse(`${where}: payload must be an object`, { entry: where });
  if (e.type === 'transcript.item') {
    // Items are read by every surface as transcripts.md describes them: one of another shape or
    // past the bounds (a re-chained, edited export) is refused, not stored.
    const problem = itemPayloadProblem(e.payload as Record<string, unknown>);
    if (problem) refuse(`${where}: transcript.item at seq ${e.seq}: ${problem}`, { entry: where, rule: 'transcript item', seq: e.seq });
  }
  return { seq: e.seq as number, ts: e.ts as string, type: e.type as string, surface: e.surface as string, actor: e.actor as Actor, payload: e.payload as Record<string, unknown> };
}

const SHA_RE = /^[0-9a-f]{64}$/;

/** Parses and checks baton-export.json; anything else is "not a baton export" (WS403). */
export function parseManifest(bytes: Buffer): ExportManifest {
  let m: ExportManifest;
  try {
    m = JSON.parse(bytes.toString('utf8'));
  } catch {
    return refuse(`${EXPORT_MANIFEST} is not valid JSON: not a baton export`, { entry: EXPORT_MANIFEST, rule: 'not an export' });
  }
  if (!m || typeof m !== 'object' || m.format !== EXPORT_FORMAT) refuse(`${EXPORT_MANIFEST} does not say format "${EXPORT_FORMAT}": not a baton export`, { entry: EXPORT_MANIFEST, rule: 'not an export' });
  if (m.version !== EXPORT_VERSION) refuse(`export format version ${JSON.stringify(m.version)} is not supported (this baton reads ${EXPORT_VERSION})`, { rule: 'not an export' });
  if (m.layout !== 'baton' && m.layout !== 'world-session-v1') refuse(`unknown export layout ${JSON.stringify(m.layout)}`, { rule: 'not an export' });
  if (typeof m.origin_id !== 'string' || typeof m.title !== 'string' || !Array.isArray(m.entries)) refuse(`${EXPORT_MANIFEST} lacks origin_id, title or entries`, { rule: 'not an export' });
  const seen = new Set<string>();
  for (const e of m.entries) {
    if (!e || typeof e.name !== 'string' || !Number.isSafeInteger(e.size) || e.size < 0 || typeof e.sha256 !== 'string' || !SHA_RE.test(e.sha256)) {
      refuse(`${EXPORT_MANIFEST} has a malformed entry ${JSON.stringify(e)}`, { rule: 'not an export' });
    }
    if (seen.has(e.name)) refuse(`${EXPORT_MANIFEST} lists ${e.name} twice`, { entry: e.name, rule: 'duplicate name' });
    seen.add(e.name);
  }
  return m;
}

/**
 * An entry name an archive may hold: relative, `/`-separated, no `.`/`..`/empty parts, no
 * backslash, NUL or control characters. yauzl refuses most of these too; this is the rule
 * for every source (a directory import has no yauzl).
 */
export function checkEntryName(name: string): void {
  const bad = (why: string): never => refuse(`unsafe entry name ${JSON.stringify(name)}: ${why}`, { entry: name, rule: why });
  if (name.length === 0 || name.length > 1024) bad('empty or longer than 1024 characters');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) bad('an absolute path');
  if (name.includes('\\')) bad('a backslash');
  if (/[\u0000-\u001f\u007f]/.test(name)) bad('a control character');
  const parts = name.replace(/\/$/, '').split('/');
  if (parts.includes('..')) bad('a ".." component');
  if (parts.some((p) => p === '' || p === '.')) bad('an empty or "." component');
}
