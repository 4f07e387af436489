// transcript.capture (transcripts.md, "What is measured"): one turn-end hook process — the
// command `baton install claude` writes, run as an agent runs it (`/bin/sh -c`, a Stop payload
// on stdin) — capturing a 64 KiB delta (about 10 items) that was appended, untimed, to a
// Claude Code transcript in a temp agent store (HOME/.claude/projects/...) before each run;
// against `node -e 0` run the same way, interleaved, median of per-pair ratios. Target ≤ 1.6.
// The lines are shaped like what Claude Code 2.1.328 writes
// (test/fixtures/transcripts/claude/claude-2.1.328-session.jsonl): a user prompt, assistant
// text with the message's usage, tool_use lines (Read, Edit, Bash), tool_result lines with
// their toolUseResult, and the metadata lines around them (last-prompt, system stop_hook_summary).
// Every item appended must reach the log exactly once.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { installedHookCommand, NODE_E0, runShell, timeShell } from '../hook-command.ts';
import { interleaved, prng, randInt, randText } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TARGET = 1.6;
const DELTA_BYTES = 64 * 1024;
const AGENT_SESSION = '3c1f0d52-6a8e-4b7f-9d21-5e0a7c4b9f10';
const CWD = '/work/bench/capture-proj';
const VERSION = '2.1.328';

/** Lines of Claude Code turns, appended to the transcript: about DELTA_BYTES and ~10 items each call. */
export class TurnWriter {
  /** `uuid` makes the lines' uuids (bench/callgrind-capture.ts passes a seeded one, for the same bytes on every count). */
  constructor(private readonly uuid: () => string = randomUUID) {}
  private rng = prng(0xc4e7);
  private parent: string | null = null;
  private t = Date.UTC(2026, 11, 1, 9);
  private msg = 0;

  private envelope(type: 'user' | 'assistant', message: unknown, extra: Record<string, unknown> = {}): { line: string; uuid: string } {
    const uuid = this.uuid();
    this.t += randInt(this.rng, 200, 4000);
    const o = {
      parentUuid: this.parent,
      isSidechain: false,
      ...(type === 'user' ? { promptId: this.uuid() } : {}),
      type,
      message,
      uuid,
      timestamp: new Date(this.t).toISOString(),
      ...extra,
      userType: 'external',
      entrypoint: 'cli',
      cwd: CWD,
      sessionId: AGENT_SESSION,
      version: VERSION,
      gitBranch: 'main',
    };
    this.parent = uuid;
    return { line: `${JSON.stringify(o)}\n`, uuid };
  }

  private assistant(content: unknown[], id: string): string {
    const usage = { input_tokens: randInt(this.rng, 100, 9000), cache_creation_input_tokens: 0, cache_read_input_tokens: randInt(this.rng, 0, 90_000), output_tokens: randInt(this.rng, 10, 900), service_tier: 'standard' };
    const message = { id, type: 'message', role: 'assistant', model: 'claude-opus-5-5', content, stop_reason: 'tool_use', stop_sequence: null, usage };
    return this.envelope('assistant', message, { requestId: `req_${id.slice(4)}` }).line;
  }

  private meta(): string {
    const o = { parentUuid: this.parent, isSidechain: false, type: 'system', subtype: 'stop_hook_summary', hookCount: 1, hookInfos: [{ command: 'baton hook claude', durationMs: randInt(this.rng, 40, 200) }], hookErrors: [], preventedContinuation: false, stopReason: '', hasOutput: false, level: 'suggestion', timestamp: new Date(this.t).toISOString(), uuid: this.uuid(), sessionId: AGENT_SESSION, cwd: CWD, version: VERSION };
    return `${JSON.stringify(o)}\n${JSON.stringify({ type: 'last-prompt', lastPrompt: 'continue', leafUuid: this.parent, sessionId: AGENT_SESSION })}\n`;
  }

  /** One turn: prompt, answer, tool calls with results until about `bytes`; its lines and how many items they hold. */
  turn(bytes: number): { text: string; items: number } {
    const r = this.rng;
    const lines: string[] = [];
    let items = 0;
    let size = 0;
    const add = (line: string, n: number): void => {
      lines.push(line);
      size += Buffer.byteLength(line);
      items += n;
    };
    add(this.envelope('user', { role: 'user', content: randText(r, randInt(r, 80, 400)) }, { permissionMode: 'default' }).line, 1);
    const id = `msg_${(++this.msg).toString(16).padStart(24, '0')}`;
    add(this.assistant([{ type: 'text', text: randText(r, randInt(r, 300, 1500)) }], id), 1);
    let k = 0;
    while (size < bytes - 14_000) {
      const callId = `toolu_${(this.msg * 100 + ++k).toString(16).padStart(24, '0')}`;
      const file = `${CWD}/src/${randText(r, 8).replace(/\W/g, '') || 'mod'}-${k}.ts`;
      const pick = k % 3;
      const input =
        pick === 0
          ? { file_path: file }
          : pick === 1
            ? { file_path: file, old_string: randText(r, randInt(r, 800, 2000)), new_string: randText(r, randInt(r, 800, 2000)) }
            : { command: `npm test -- ${randText(r, 12)}`, description: 'Run the tests' };
      const name = pick === 0 ? 'Read' : pick === 1 ? 'Edit' : 'Bash';
      add(this.assistant([{ type: 'tool_use', id: callId, name, input }], id), 1);
      const out = randText(r, pick === 0 ? randInt(r, 8000, 12_000) : pick === 1 ? randInt(r, 300, 900) : randInt(r, 5000, 9000));
      const toolUseResult = pick === 0 ? { type: 'text', file: { filePath: file, content: out, numLines: 120, startLine: 1, totalLines: 120 } } : pick === 1 ? { filePath: file, oldString: input.old_string, newString: input.new_string, structuredPatch: [] } : { stdout: out, stderr: '', interrupted: false, isImage: false };
      add(this.envelope('user', { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: out }] }, { toolUseResult, sourceToolAssistantUUID: this.parent }).line, 1);
    }
    add(this.assistant([{ type: 'text', text: randText(r, Math.max(200, bytes - size - 1900)) }], `${id}e`), 1);
    add(this.meta(), 0);
    return { text: lines.join(''), items };
  }
}

const transcriptCapture: BenchCase = {
  name: 'transcript.capture',
  async run(ctx): Promise<CaseResult> {
    const store = join(ctx.tmp, 'store');
    const agentHome = join(ctx.tmp, 'agent-home');
    const dir = join(agentHome, '.claude', 'projects', CWD.replace(/[^A-Za-z0-9]/g, '-'));
    fs.mkdirSync(dir, { recursive: true });
    const transcript = join(dir, `${AGENT_SESSION}.jsonl`);
    const command = installedHookCommand(ctx.root, ctx.tmp, 'Stop');
    const env = { HOME: agentHome, BATON_HOME: store, BATON_SESSION: undefined, BATON_VERIFY: undefined, CLAUDE_CONFIG_DIR: undefined };
    const payload = JSON.stringify({ session_id: AGENT_SESSION, transcript_path: transcript, cwd: CWD, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' });
    const turns = new TurnWriter();
    let written = 0;
    const deltas: { bytes: number; items: number }[] = [];
    const appendTurn = (): void => {
      const t = turns.turn(DELTA_BYTES);
      fs.appendFileSync(transcript, t.text);
      written += t.items;
      deltas.push({ bytes: Buffer.byteLength(t.text), items: t.items });
    };
    // Setup, untimed: the first turn makes the session, and the hook's code cache is written.
    appendTurn();
    const first = runShell(command, env, { input: payload, stdout: 'pipe' });
    if (first.stderr.trim()) throw new Error(`bench setup: the Stop hook said: ${first.stderr.trim().slice(0, 300)}`);
    appendTurn();
    runShell(command, env, { input: payload });
    const pairs = ctx.quick ? 12 : 40;
    const r = await interleaved(
      pairs,
      () => {
        appendTurn();
        const t = runShell(command, env, { input: payload });
        if (t.stderr.trim()) throw new Error(`the Stop hook said: ${t.stderr.trim().slice(0, 300)}`);
        return t.ms;
      },
      () => timeShell(NODE_E0, env),
    );
    // Every item the transcript gained is in the log, once.
    const log = join(store, 'sessions', AGENT_SESSION, 'events.jsonl');
    const ids = fs
      .readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"transcript.item"'))
      .map((l) => (JSON.parse(l) as { payload: { item_id: string } }).payload.item_id);
    const complete = ids.length === written && new Set(ids).size === ids.length;
    const measured = deltas.slice(2);
    const bytes = measured.map((d) => d.bytes);
    const items = measured.map((d) => d.items);
    return {
      name: 'transcript.capture',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'ms',
      target: `ratio <= ${TARGET}`,
      pass: r.ratio <= TARGET && complete,
      details: {
        command,
        node: process.version,
        pairs,
        delta_bytes_min: Math.min(...bytes),
        delta_bytes_max: Math.max(...bytes),
        delta_items_min: Math.min(...items),
        delta_items_max: Math.max(...items),
        items_written: written,
        items_in_log: ids.length,
        complete,
        transcript_bytes: fs.statSync(transcript).size,
        ours_ms_median: r.a,
        node_e0_ms_median: r.b,
      },
    };
  },
};

export default transcriptCapture;
