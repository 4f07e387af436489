// The Codex CLI transcript reader (0.171.0 seen: test/fixtures/transcripts/codex/). Codex keeps
// one "rollout" per session, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<session id>.jsonl`
// (CODEX_HOME, default ~/.codex, is honoured by the binary), appended to by every run of that
// session (`codex exec resume ID` adds its lines to the same file); archived sessions move to
// `$CODEX_HOME/archived_sessions/`. Each line is `{"timestamp", "ordinal", "type", "payload"}`:
// - `session_meta` (id, cwd, cli_version, timestamp) and `turn_context` (model): meta, no item;
// - `response_item`: what the model saw and said, the source of the items —
//   `message` user (only with user provenance: the harness's <environment_context> and the
//   developer messages are not the user's) / assistant, `function_call` (name, call_id, JSON
//   arguments), `function_call_output`, `reasoning` (its summary texts only, never
//   encrypted_content); its `id` (msg_/fc_/fco_/rs_) is the item id, else `line:N`;
// - `token_usage_record`: the usage of one model response, written right after that
//   response's items: the reader holds the response's last item back one line (in
//   `state.own.held`) and gives it that usage (input, output, cached → cache_read,
//   cache_write); an item over HOLD_LIMIT is given out at once without usage;
// - `event_msg` (UI mirror of the same items, task start/end, token counts), `world_state`:
//   no item. Anything else is an unknown shape (SkipLine). Codex writes no format version
//   (cli_version is the program's), so no file is refused as an unknown format.
// Shell calls (exec_command) name no files: `files` stays empty. Pure: no I/O but readdir.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import type { ItemUsage, RawItem } from '../core/transcript.ts';
import { type JsonlReader, type ParseState, type ReaderEnv, type SessionFile, SkipLine } from './types.ts';
import { currentRun, noteRunTime, startRun } from './reader-util.ts';

/** A held item bigger than this (text + input, in UTF-16 units) is not kept in the cursor state. */
const HOLD_LIMIT = 64 * 1024;
/** Call ids remembered for naming tool results (oldest dropped first). */
const MAX_CALLS = 256;

const ROLLOUT_RE = /^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** The Codex home: $CODEX_HOME, else ~/.codex. */
function codexHome(re: ReaderEnv): string {
  return re.env.CODEX_HOME || join(re.home, '.codex');
}

function contentText(content: unknown, types: string[]): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => obj(c))
    .filter((c) => c && types.includes(String(c.type)) && typeof c.text === 'string')
    .map((c) => c!.text as string)
    .join('\n');
}

/** A user message the user typed (not the harness's context): by its provenance, else by its look. */
function fromUser(p: Record<string, unknown>, text: string): boolean {
  const meta = obj(p.internal_chat_message_metadata_passthrough);
  const items = Array.isArray(meta?.content_item_metadata) ? meta.content_item_metadata : undefined;
  if (items && items.length > 0) return items.some((m) => obj(obj(m)?.provenance)?.type === 'user');
  return !/^\s*<(environment_context|user_instructions|permissions instructions|skills_instructions)>/.test(text);
}

function parseArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

function usageOf(u: Record<string, unknown> | undefined): ItemUsage | undefined {
  if (!u) return undefined;
  const out: ItemUsage = {};
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  const read = num(u.cached_input_tokens);
  const write = num(u.cache_write_input_tokens);
  if (input !== undefined) out.input = input;
  if (output !== undefined) out.output = output;
  if (read !== undefined) out.cache_read = read;
  if (write !== undefined) out.cache_write = write;
  return Object.keys(out).length ? out : undefined;
}

function remember(state: ParseState, callId: string, name: string): void {
  const calls = (obj(state.own.calls) ?? {}) as Record<string, string>;
  calls[callId] = name;
  const keys = Object.keys(calls);
  if (keys.length > MAX_CALLS) delete calls[keys[0]];
  state.own.calls = calls;
}

/** The items of one response_item payload (none for developer and harness messages, encrypted-only reasoning). */
function responseItem(p: Record<string, unknown>, id: string, at: string | null, state: ParseState): RawItem[] {
  const type = str(p.type);
  if (type === 'message') {
    const role = str(p.role);
    if (role === 'developer' || role === 'system') return [];
    if (role === 'user') {
      const text = contentText(p.content, ['input_text', 'text']);
      if (!fromUser(p, text)) return [];
      if (state.meta.firstPrompt === undefined && text) state.meta.firstPrompt = text;
      return [{ item_id: id, at, role: 'user', kind: 'message', text }];
    }
    if (role === 'assistant') {
      const item: RawItem = { item_id: id, at, role: 'assistant', kind: 'message', text: contentText(p.content, ['output_text', 'text']) };
      if (state.meta.model) item.model = state.meta.model;
      return [item];
    }
    throw new SkipLine(`codex: message role ${JSON.stringify(role ?? null).slice(0, 40)}`);
  }
  if (type === 'function_call') {
    const name = str(p.name) ?? '';
    const callId = str(p.call_id) ?? id;
    remember(state, callId, name);
    const item: RawItem = { item_id: id, at, role: 'assistant', kind: 'tool_call', text: '', tool: { name, call_id: callId, input: parseArgs(p.arguments) }, files: [] };
    if (state.meta.model) item.model = state.meta.model;
    return [item];
  }
  if (type === 'function_call_output') {
    const callId = str(p.call_id) ?? '';
    const name = (obj(state.own.calls) as Record<string, string> | undefined)?.[callId] ?? '';
    const out = p.output;
    const text = typeof out === 'string' ? out : contentText(out, ['input_text', 'output_text', 'text']) || JSON.stringify(out ?? '');
    return [{ item_id: id, at, role: 'tool', kind: 'tool_result', text, tool: { name, call_id: callId } }];
  }
  if (type === 'reasoning') {
    const summary = Array.isArray(p.summary) ? p.summary : [];
    const text = summary
      .map((s) => obj(s))
      .filter((s) => s && typeof s.text === 'string')
      .map((s) => s!.text as string)
      .join('\n');
    return text ? [{ item_id: id, at, role: 'assistant', kind: 'reasoning', text }] : [];
  }
  throw new SkipLine(`codex: response item ${JSON.stringify(type ?? null).slice(0, 40)}`);
}

const itemSize = (i: RawItem): number => i.text.length + (i.tool?.input === undefined ? 0 : JSON.stringify(i.tool.input).length);

/** The held item (the previous response's last one), released with `usage` when given. */
function release(state: ParseState, usage?: ItemUsage): RawItem[] {
  const held = state.own.held as RawItem | undefined;
  if (!held) return [];
  delete state.own.held;
  return [usage ? { ...held, usage } : held];
}

function parseLine(value: unknown, line: number, state: ParseState): RawItem[] {
  const rec = obj(value);
  if (!rec) throw new SkipLine('codex: not an object');
  const type = str(rec.type);
  const p = obj(rec.payload);
  const at = str(rec.timestamp) ?? null;
  if (!type || !p) throw new SkipLine('codex: no type or payload');
  if (!state.meta.runs) startRun(state, line, null, 'startup');
  if (type === 'token_usage_record') return release(state, usageOf(obj(p.usage)));
  const out = release(state);
  switch (type) {
    case 'session_meta': {
      const m = state.meta;
      m.agentSession ??= str(p.id) ?? str(p.session_id);
      m.cwd ??= str(p.cwd);
      m.version = str(p.cli_version) ?? m.version;
      m.startedAt ??= str(p.timestamp) ?? at ?? undefined;
      return out;
    }
    case 'turn_context':
      if (str(p.model)) state.meta.model = str(p.model);
      if (!state.meta.cwd && str(p.cwd)) state.meta.cwd = str(p.cwd);
      return out;
    case 'event_msg': {
      // A run (one codex process: exec, or exec resume) applies the thread's settings once as it
      // loads the thread; seen between turns, that is a resume. Items held back for their usage
      // are released at that line: the new run starts on the next one.
      const r = currentRun(state);
      const kind = str(p.type);
      if (kind === 'thread_settings_applied' && r && !r.busy && r.prompts > 0) startRun(state, line + 1, at, 'resume');
      else if (kind === 'task_started' && r) {
        r.busy = true;
        r.prompts++;
        noteRunTime(state, at);
      } else if ((kind === 'task_complete' || kind === 'turn_aborted') && r) {
        r.busy = false;
        noteRunTime(state, at);
      }
      return out;
    }
    case 'world_state':
      return out;
    case 'response_item': {
      noteRunTime(state, at);
      const items = responseItem(p, str(p.id) ?? `line:${line}`, at, state);
      const last = items.at(-1);
      // The response's usage comes on the next line: hold its (so far) last item back for it.
      if (last && last.role === 'assistant' && itemSize(last) <= HOLD_LIMIT) {
        // Its model is the one in force now, not when it is released.
        if (!last.model && state.meta.model) last.model = state.meta.model;
        state.own.held = last;
        return [...out, ...items.slice(0, -1)];
      }
      return [...out, ...items];
    }
    default:
      throw new SkipLine(`codex: line type ${JSON.stringify(type).slice(0, 40)}`);
  }
}

function readdir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function* rollouts(dir: string, depth: number): Generator<SessionFile> {
  for (const e of readdir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory() && depth > 0) yield* rollouts(path, depth - 1);
    else if (e.isFile()) {
      const m = ROLLOUT_RE.exec(e.name);
      if (m) yield { path, agentSession: m[1] };
    }
  }
}

export const codexReader: JsonlReader = {
  agent: 'codex',
  format: 'jsonl',
  roots: (re) => [join(codexHome(re), 'sessions'), join(codexHome(re), 'archived_sessions')],
  list(re) {
    const [sessions, archived] = this.roots(re);
    return [...rollouts(sessions, 3), ...rollouts(archived, 3)];
  },
  locate(re, agentSession) {
    if (!/^[0-9a-f-]{36}$/.test(agentSession)) return null;
    const suffix = `-${agentSession}.jsonl`;
    const [sessions, archived] = this.roots(re);
    // Newest day first: a live session is almost always in the last folder.
    const desc = (dir: string): string[] =>
      readdir(dir)
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()
        .reverse();
    for (const y of desc(sessions))
      for (const m of desc(join(sessions, y)))
        for (const d of desc(join(sessions, y, m))) {
          const hit = readdir(join(sessions, y, m, d)).find((e) => e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith(suffix));
          if (hit) return join(sessions, y, m, d, hit.name);
        }
    for (const f of rollouts(archived, 3)) if (f.agentSession === agentSession) return f.path;
    return null;
  },
  parseLine,
  // A rollout that ended before the usage line of its last answer (the agent killed, the
  // session over): the answer is given out without usage, not kept back for ever.
  finish: (state) => release(state),
};
