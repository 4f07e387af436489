// The transcript item (transcripts.md, "The item"): one item of an agent's visible
// conversation as baton stores it in a `transcript.item` event. Pure: no I/O, safe on the hook
// path. A reader (src/transcripts/<agent>.ts) turns the agent's own lines into RawItems; boundItem
// redacts and bounds them into the payload; itemDigest says whether two records of one item hold
// the same content (idempotence: the same content is never appended twice).
import { contentDigest, sha256Hex } from './hash.ts';
import { redactText, redactValue } from './redact.ts';

export const TRANSCRIPT_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'droid', 'opencode', 'kilo', 'pi'] as const;
export type TranscriptAgent = (typeof TRANSCRIPT_AGENTS)[number];

export const ITEM_ROLES = ['user', 'assistant', 'tool', 'system'] as const;
export type ItemRole = (typeof ITEM_ROLES)[number];
export const ITEM_KINDS = ['message', 'tool_call', 'tool_result', 'reasoning', 'compaction'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** transcripts.md's bounds, in UTF-8 bytes. */
export const ITEM_LIMITS = {
  /** message, reasoning, compaction and tool-call text. */
  text: 32 * 1024,
  /** tool results. */
  toolResult: 8 * 1024,
  /** a tool's input, as JSON. */
  toolInput: 4 * 1024,
  files: 64,
  /** item ids and call ids, model names: identifiers, not texts. */
  id: 256,
} as const;

export const CUT_MARK = '\n[… baton cut %d bytes …]\n';

export interface ItemUsage {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
}

export interface ItemTool {
  name: string;
  call_id: string;
  /** The tool's input, redacted; when its JSON is over 4 KiB, `{"_truncated": "<head of the JSON>", "original_bytes": N}`. */
  input?: unknown;
}

/** The payload of a `transcript.item` event. */
export interface TranscriptItem {
  agent: TranscriptAgent;
  agent_session: string;
  item_id: string;
  at: string;
  role: ItemRole;
  kind: ItemKind;
  text: string;
  truncated?: { original_bytes: number; sha256: string };
  tool?: ItemTool;
  files?: string[];
  model?: string;
  usage?: ItemUsage;
  supersedes?: number;
}

/** What a reader makes of the agent's record, before redaction and bounds. */
export interface RawItem {
  item_id: string;
  /** The agent's timestamp (any form Date parses, or epoch ms); null when it records none. */
  at: string | number | null;
  role: ItemRole;
  kind: ItemKind;
  text: string;
  tool?: { name: string; call_id: string; input?: unknown };
  /** Paths the item read, wrote or edited, as the tool's input names them (absolute or relative). */
  files?: string[];
  /** For a tool result: the file the tool read, when it read one (credential files are kept as metadata only). */
  readPath?: string;
  model?: string;
  usage?: ItemUsage;
}

/** A file whose contents are never stored (transcripts.md): `.env*`, `id_rsa*`, `*.pem`, `*.key`, `credentials*`, `.netrc`, `.pgpass`. */
export function isCredentialFile(path: string): boolean {
  const base = (path.split(/[\\/]/).pop() ?? '').toLowerCase();
  return (
    base.startsWith('.env') ||
    base.startsWith('id_rsa') ||
    base.endsWith('.pem') ||
    base.endsWith('.key') ||
    base.startsWith('credentials') ||
    base === '.netrc' ||
    base === '.pgpass'
  );
}

const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The longest prefix of s within `bytes` UTF-8 bytes, never splitting a character. */
export function headBytes(s: string, bytes: number): string {
  if (bytes <= 0) return '';
  // At most 3 bytes a UTF-16 unit: short enough whatever it holds (no copy into a Buffer).
  if (s.length * 3 <= bytes) return s;
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= bytes) return s;
  let end = bytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
}

/** The longest suffix of s within `bytes` UTF-8 bytes, never splitting a character. */
export function tailBytes(s: string, bytes: number): string {
  if (bytes <= 0) return '';
  if (s.length * 3 <= bytes) return s;
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= bytes) return s;
  let start = buf.length - bytes;
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return buf.toString('utf8', start);
}

/**
 * A text within `limit` bytes: head and tail kept around a marked cut (two thirds head), and
 * what was cut recorded as the byte count and sha256 of the whole (already redacted) text.
 */
export function cutText(text: string, limit: number): { text: string; truncated?: { original_bytes: number; sha256: string } } {
  const n = utf8Bytes(text);
  if (n <= limit) return { text };
  const mark = CUT_MARK.replace('%d', String(n));
  const room = Math.max(0, limit - utf8Bytes(mark));
  // All ASCII (a byte a character): the cuts are plain slices, no copy of the text into a Buffer.
  const ascii = n === text.length;
  const headRoom = Math.floor((room * 2) / 3);
  const head = ascii ? text.slice(0, headRoom) : headBytes(text, headRoom);
  const tailRoom = room - utf8Bytes(head);
  const tail = ascii ? (tailRoom > 0 ? text.slice(text.length - tailRoom) : '') : tailBytes(text, tailRoom);
  return { text: `${head}${CUT_MARK.replace('%d', String(n - utf8Bytes(head) - utf8Bytes(tail)))}${tail}`, truncated: { original_bytes: n, sha256: sha256Hex(text) } };
}

/** A path as the item stores it: relative to the workspace when inside it, else as given (normalised slashes). */
export function workspaceRelative(path: string, workspace: string | null): string | null {
  if (typeof path !== 'string') return null;
  let p = path.trim().replace(/\\/g, '/');
  if (p === '' || p.includes('\0')) return null;
  if (p.startsWith('file://')) p = p.slice(7);
  if (workspace) {
    const ws = workspace.replace(/\\/g, '/').replace(/\/+$/, '');
    if (p === ws) return '.';
    if (p.startsWith(`${ws}/`)) p = p.slice(ws.length + 1);
  }
  if (p.startsWith('./')) p = p.slice(2);
  p = p.replace(/\/{2,}/g, '/');
  return headBytes(p, 1024);
}

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The agent's timestamp as ISO 8601 with milliseconds; `fallback` when it has none or it does not parse. */
export function itemTime(at: string | number | null, fallback: string): string {
  if (at === null || at === undefined || at === '') return fallback;
  if (typeof at === 'string' && ISO_RE.test(at)) return at;
  const d = new Date(typeof at === 'number' ? at : String(at));
  const t = d.getTime();
  return Number.isFinite(t) && t > 0 && t < 32503680000000 ? d.toISOString() : fallback;
}

function boundUsage(u: ItemUsage | undefined): ItemUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const out: ItemUsage = {};
  for (const k of ['input', 'output', 'cache_read', 'cache_write'] as const) {
    const v = u[k];
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

function boundInput(input: unknown): unknown {
  if (input === undefined) return undefined;
  const red = redactValue(input);
  let json: string;
  try {
    json = JSON.stringify(red) ?? 'null';
  } catch {
    return { _truncated: '', original_bytes: 0 };
  }
  const n = utf8Bytes(json);
  if (n <= ITEM_LIMITS.toolInput) return red;
  return { _truncated: headBytes(json, ITEM_LIMITS.toolInput - 64), original_bytes: n };
}

/**
 * The `transcript.item` payload of a raw item: every string redacted (the append relies on it:
 * capture marks these events preRedacted) (redaction.md) and then
 * bounded (transcripts.md), files made workspace-relative (at most 64), a tool result that
 * read a credential file reduced to its name, byte count and sha256.
 */
export function boundItem(agent: TranscriptAgent, agentSession: string, raw: RawItem, opts: { workspace: string | null; now: string }): TranscriptItem {
  const limit = raw.kind === 'tool_result' ? ITEM_LIMITS.toolResult : ITEM_LIMITS.text;
  let text = typeof raw.text === 'string' ? raw.text : '';
  let credential = false;
  if (raw.kind === 'tool_result' && raw.readPath && isCredentialFile(raw.readPath)) {
    credential = true;
    text = `[credential file ${workspaceRelative(raw.readPath, opts.workspace) ?? 'file'}: ${utf8Bytes(text)} bytes, sha256 ${sha256Hex(text)}; contents not stored]`;
  }
  const cut = credential ? { text } : cutText(redactText(text), limit);
  const item: TranscriptItem = {
    agent,
    agent_session: redactText(agentSession),
    item_id: redactText(headBytes(String(raw.item_id), ITEM_LIMITS.id)),
    at: itemTime(raw.at, opts.now),
    role: raw.role,
    kind: raw.kind,
    text: cut.text,
  };
  if (cut.truncated) item.truncated = cut.truncated;
  if (raw.tool) {
    const tool: ItemTool = { name: headBytes(redactText(String(raw.tool.name ?? '')), ITEM_LIMITS.id), call_id: redactText(headBytes(String(raw.tool.call_id ?? ''), ITEM_LIMITS.id)) };
    const input = boundInput(raw.tool.input);
    if (input !== undefined) tool.input = input;
    item.tool = tool;
  }
  if (raw.files?.length) {
    const files: string[] = [];
    for (const f of raw.files) {
      const rel = workspaceRelative(f, opts.workspace);
      if (rel && !files.includes(rel)) files.push(redactText(rel));
      if (files.length === ITEM_LIMITS.files) break;
    }
    if (files.length) item.files = files;
  }
  if (raw.model) item.model = redactText(headBytes(String(raw.model), ITEM_LIMITS.id));
  const usage = boundUsage(raw.usage);
  if (usage) item.usage = usage;
  return item;
}

/** The identity of an item across every capture: agent, agent session, item id. */
export function itemKey(item: Pick<TranscriptItem, 'agent' | 'agent_session' | 'item_id'>): string {
  return sha256Hex(`${item.agent}\u0000${item.agent_session}\u0000${item.item_id}`).slice(0, 32);
}

/**
 * The digest of an item's content (everything but `supersedes` and `at`): equal digests are the
 * same item, never appended twice. The fields but the text as one JSON array (which delimits
 * itself), then the text, through contentDigest (docs/adr/0088): the text is neither copied into
 * a JSON string nor run through SHA-256, which a capture's short-lived process pays ~4 M
 * instructions for. The fields are read one by one: a rest copy of the item (`{ supersedes,
 * ...rest }`) is made in V8's runtime, ~50 k instructions an item (docs/adr/0083).
 */
export function itemDigest(item: TranscriptItem): string {
  return contentDigest(JSON.stringify([item.role, item.kind, item.truncated ?? null, item.tool ?? null, item.files ?? null, item.model ?? null, item.usage ?? null]), item.text);
}

const ITEM_KEYS = new Set(['agent', 'agent_session', 'item_id', 'at', 'role', 'kind', 'text', 'truncated', 'tool', 'files', 'model', 'usage', 'supersedes']);
const USAGE_KEYS = new Set(['input', 'output', 'cache_read', 'cache_write']);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const idOk = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && utf8Bytes(v) <= ITEM_LIMITS.id;
const countOk = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * What is wrong with a `transcript.item` payload that did not come from this baton's capture
 * (an export being imported: its chain proves it whole, not well made), or null: the fields of
 * transcripts.md's table, their types and the bounds boundItem keeps (texts, the tool's input,
 * files, ids). No schema library: this module is on the hook path.
 */
export function itemPayloadProblem(p: Record<string, unknown>): string | null {
  for (const k of Object.keys(p)) if (!ITEM_KEYS.has(k)) return `unknown field ${JSON.stringify(k)}`;
  if (!(TRANSCRIPT_AGENTS as readonly unknown[]).includes(p.agent)) return 'agent is not one baton reads';
  if (!idOk(p.agent_session) || !idOk(p.item_id)) return 'agent_session and item_id must be ids (1 to 256 bytes)';
  if (typeof p.at !== 'string' || !ISO_MS.test(p.at) || !Number.isFinite(Date.parse(p.at))) return 'at is not an ISO time in milliseconds';
  if (!(ITEM_ROLES as readonly unknown[]).includes(p.role) || !(ITEM_KINDS as readonly unknown[]).includes(p.kind)) return 'role or kind is not one of transcripts.md';
  if (typeof p.text !== 'string') return 'text is not a string';
  const limit = p.kind === 'tool_result' ? ITEM_LIMITS.toolResult : ITEM_LIMITS.text;
  if (utf8Bytes(p.text) > limit) return `text is over ${limit} bytes`;
  const t = p.truncated as Record<string, unknown> | undefined;
  if (t !== undefined && (!t || typeof t !== 'object' || Object.keys(t).some((k) => k !== 'original_bytes' && k !== 'sha256') || !countOk(t.original_bytes) || typeof t.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(t.sha256))) return 'truncated is not {original_bytes, sha256}';
  const tool = p.tool as Record<string, unknown> | undefined;
  if (tool !== undefined) {
    if (!tool || typeof tool !== 'object' || Array.isArray(tool) || Object.keys(tool).some((k) => k !== 'name' && k !== 'call_id' && k !== 'input')) return 'tool is not {name, call_id, input?}';
    if (typeof tool.name !== 'string' || typeof tool.call_id !== 'string' || utf8Bytes(tool.name) > ITEM_LIMITS.id || utf8Bytes(tool.call_id) > ITEM_LIMITS.id) return "tool's name and call_id must be ids";
    const input = tool.input as Record<string, unknown> | undefined;
    const cut = input && typeof input === 'object' && typeof input._truncated === 'string' && Object.keys(input).length === 2 && countOk(input.original_bytes);
    if (input !== undefined && utf8Bytes(cut ? (input._truncated as string) : (JSON.stringify(input) ?? '')) > ITEM_LIMITS.toolInput) return `the tool's input is over ${ITEM_LIMITS.toolInput} bytes`;
  }
  if (p.files !== undefined && (!Array.isArray(p.files) || p.files.length > ITEM_LIMITS.files || p.files.some((f) => typeof f !== 'string' || f === '' || utf8Bytes(f) > 4096))) return `files must be at most ${ITEM_LIMITS.files} paths`;
  if (p.model !== undefined && !idOk(p.model)) return 'model must be an id';
  const u = p.usage as Record<string, unknown> | undefined;
  if (u !== undefined && (!u || typeof u !== 'object' || Array.isArray(u) || Object.entries(u).some(([k, v]) => !USAGE_KEYS.has(k) || !countOk(v)))) return 'usage holds token counts only';
  if (p.supersedes !== undefined && !(Number.isSafeInteger(p.supersedes) && (p.supersedes as number) >= 1)) return 'supersedes is not a seq';
  return null;
}
