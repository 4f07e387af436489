// The Codex CLI reader over the rollout Codex 0.171.0 wrote (test/e2e/record-transcripts-codex.ts):
// the exact items, usage on each response's last item, reasoning summaries, the harness's
// messages left out, the store layout (list, locate, CODEX_HOME), and the reader contract.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { codexReader } from '../src/transcripts/codex.ts';
import { newParseState, parseJsonlChunk } from '../src/transcripts/parse.ts';
import { ROOT, tmpDir } from './helpers.ts';
import { parseAll, readerContract } from './transcript-reader-contract.ts';

const FILE = join(ROOT, 'test', 'fixtures', 'transcripts', 'codex', 'codex-0.171.0-session.jsonl');
const bytes = fs.readFileSync(FILE);
const SID = '01a23430-524d-7e42-b941-98c6b1714255';
const usage = { input: 12, output: 6, cache_read: 0, cache_write: 0 };
const temps: string[] = [];
after(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

test('codex: the items of a run and its resume, exactly', () => {
  const state = newParseState();
  const out = parseJsonlChunk(codexReader, bytes, 1, state);
  const items = out.items.map((i) => {
    const { at, item_id, ...rest } = i.raw;
    assert.ok(typeof at === 'string' && !Number.isNaN(Date.parse(at)));
    assert.match(item_id, /^(msg|fc|fco|rs)_/);
    return rest;
  });
  const result = items[3] as any;
  assert.match(result.text, /Process exited with code 0/);
  assert.deepEqual(items, [
    { role: 'user', kind: 'message', text: 'Write the notes file' },
    { role: 'assistant', kind: 'message', text: 'I will write the notes file first.', model: 'gpt-5' },
    { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'exec_command', call_id: 'call_5519048cf9a04e75beb75d1a', input: { cmd: "printf 'hello\\n' > notes.txt" } }, files: [], model: 'gpt-5', usage },
    { role: 'tool', kind: 'tool_result', text: result.text, tool: { name: 'exec_command', call_id: 'call_5519048cf9a04e75beb75d1a' } },
    { role: 'assistant', kind: 'reasoning', text: 'The file is written; report it.', model: 'gpt-5' },
    { role: 'assistant', kind: 'message', text: 'Done: notes.txt is written. The token is ghp_A1b2C3d4E5f6G7h8I9j0A1b2C3d4E5f6G7h8.', model: 'gpt-5', usage },
    { role: 'user', kind: 'message', text: 'Are the notes there?' },
    { role: 'assistant', kind: 'message', text: 'Resumed: the notes are still there.', model: 'gpt-5', usage },
  ]);
  const { runs, ...meta } = state.meta;
  assert.deepEqual(meta, { agentSession: SID, cwd: '/home/u/proj', version: '0.171.0', startedAt: state.meta.startedAt, model: 'gpt-5', firstPrompt: 'Write the notes file' });
  // The exec and its resume are two runs (the resume's thread_settings_applied at line 24, between turns).
  assert.deepEqual(
    runs?.map((r) => [r.line, r.source, r.at, r.last, r.prompts]),
    [
      [1, 'startup', '2026-12-02T00:38:31.884Z', '2026-12-02T00:38:32.531Z', 1],
      [25, 'resume', '2026-12-02T00:38:33.501Z', '2026-12-02T00:38:33.803Z', 1],
    ],
  );
  assert.equal(state.own.held, undefined, 'nothing held back at the end of a finished run');
});

test('codex: an item whose usage line has not come yet is held in the state, and comes out with it on the next parse', () => {
  const lines = bytes.toString('utf8').split('\n');
  const at = lines.findIndex((l) => l.includes('"type":"token_usage_record"'));
  const head = Buffer.from(`${lines.slice(0, at).join('\n')}\n`);
  const state = newParseState();
  const first = parseJsonlChunk(codexReader, head, 1, state);
  assert.equal(first.items.at(-1)?.raw.kind, 'message', 'the call is held, the message before it out');
  assert.equal((state.own.held as any)?.kind, 'tool_call');
  const rest = parseJsonlChunk(codexReader, bytes.subarray(head.length), first.lines + 1, JSON.parse(JSON.stringify(state)));
  assert.equal(rest.items[0].raw.kind, 'tool_call');
  assert.deepEqual(rest.items[0].raw.usage, usage);
});

test('codex: harness and developer messages, encrypted-only reasoning and UI events give no item; unknown shapes are SkipLine', () => {
  const line = (o: unknown) => Buffer.from(`${JSON.stringify(o)}\n`);
  const input = Buffer.concat([
    line({ timestamp: 't', type: 'response_item', payload: { type: 'message', id: 'm1', role: 'developer', content: [{ type: 'input_text', text: 'x' }] } }),
    line({ timestamp: 't', type: 'response_item', payload: { type: 'message', id: 'm2', role: 'user', content: [{ type: 'input_text', text: '<environment_context>x</environment_context>' }] } }),
    line({ timestamp: 't', type: 'response_item', payload: { type: 'reasoning', id: 'rs1', summary: [], encrypted_content: 'gAAA' } }),
    line({ timestamp: 't', type: 'event_msg', payload: { type: 'agent_message', message: 'x' } }),
    line({ timestamp: 't', type: 'response_item', payload: { type: 'brand_new', id: 'b1' } }),
    line({ timestamp: 't', type: 'brand_new_line', payload: {} }),
  ]);
  const out = parseAll(codexReader, input);
  assert.deepEqual(out.items, []);
  assert.deepEqual(
    out.skips.map((s) => s.line),
    [5, 6],
  );
});

test('codex: roots, list and locate follow $CODEX_HOME (else ~/.codex) with readdir only', () => {
  const home = tmpDir();
  temps.push(home);
  const day = join(home, '.codex', 'sessions', '2026', '12', '02');
  fs.mkdirSync(day, { recursive: true });
  const file = join(day, `rollout-2026-12-02T00-38-31-${SID}.jsonl`);
  fs.writeFileSync(file, '');
  fs.writeFileSync(join(day, 'notes.txt'), '');
  const re = { home, env: {} };
  assert.deepEqual(codexReader.roots(re), [join(home, '.codex', 'sessions'), join(home, '.codex', 'archived_sessions')]);
  assert.deepEqual([...codexReader.list(re)], [{ path: file, agentSession: SID }]);
  assert.equal(codexReader.locate(re, SID, null), file);
  assert.equal(codexReader.locate(re, '01a23430-0000-7e42-b941-98c6b1714255', null), null);
  assert.equal(codexReader.locate(re, '../../etc/passwd', null), null);
  const alt = { home: '/nowhere', env: { CODEX_HOME: join(home, '.codex') } };
  assert.equal(codexReader.locate(alt, SID, null), file);
});

readerContract(codexReader, bytes, 23, JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'brand_new', id: 'b1' } }));
