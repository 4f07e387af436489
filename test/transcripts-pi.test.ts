// pi's transcript reader over the session pi 0.73.1 wrote offline (test/e2e/record-transcripts-pi.ts):
// the exact items, ids stable across parses, a resumed run adding only new ids, an unfinished
// last line left for later, and hostile input skipped with a reason, never thrown.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { boundItem } from '../src/core/transcript.ts';
import { newParseState, parseJsonlChunk } from '../src/transcripts/parse.ts';
import { piProjectFolder, piReader } from '../src/transcripts/pi.ts';
import type { JsonlReader } from '../src/transcripts/types.ts';
import { tmpDir } from './helpers.ts';

const DIR = join(import.meta.dirname, 'fixtures', 'transcripts', 'pi');
const FULL = fs.readFileSync(join(DIR, 'pi-0.73.1-session.jsonl'));
const FIRST = fs.readFileSync(join(DIR, 'pi-0.73.1-session.first.jsonl'));
const reader = piReader as JsonlReader;
const SECRET = `ghp_${'A1b2C3d4E5'.repeat(3)}x9Y8z7`;

const parse = (bytes: Buffer, firstLine = 1, state = newParseState()) => ({ ...parseJsonlChunk(reader, bytes, firstLine, state), state });
const shape = (raw: any) => {
  const o: any = { role: raw.role, kind: raw.kind, text: raw.text };
  for (const k of ['tool', 'files', 'readPath', 'model', 'usage']) if (raw[k] !== undefined) o[k] = raw[k];
  return o;
};
const usage = { input: 12, output: 6, cache_read: 0, cache_write: 0 };

describe('pi 0.73.1 transcript reader', () => {
  test('the recorded session becomes exactly its items: prompts, answers with model and usage, the bash and write calls with their results', () => {
    const r = parse(FULL);
    assert.deepEqual(r.skips, []);
    assert.equal(r.consumed, FULL.length);
    const items = r.items.map((i) => i.raw);
    const calls = items.filter((i) => i.kind === 'tool_call').map((i) => i.tool!.call_id);
    assert.equal(calls.length, 2);
    assert.deepEqual(items.map(shape), [
      { role: 'user', kind: 'message', text: 'Write hello into notes.txt and a poem into poem.txt' },
      { role: 'assistant', kind: 'message', text: 'I will write the notes first.', model: 'stand-in', usage },
      { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'bash', call_id: calls[0], input: { command: "printf 'hello\\n' > notes.txt", description: 'publish the task pointer' } }, model: 'stand-in' },
      { role: 'tool', kind: 'tool_result', text: '(no output)', tool: { name: 'bash', call_id: calls[0] } },
      { role: 'assistant', kind: 'message', text: 'Now the poem.', model: 'stand-in', usage },
      { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'write', call_id: calls[1], input: { path: 'poem.txt', content: 'roses are red\n' } }, files: ['poem.txt'], model: 'stand-in' },
      { role: 'tool', kind: 'tool_result', text: 'Successfully wrote 14 bytes to poem.txt', tool: { name: 'write', call_id: calls[1] } },
      { role: 'assistant', kind: 'message', text: 'Done: notes.txt and poem.txt are written.', model: 'stand-in', usage },
      { role: 'user', kind: 'message', text: 'Print the deploy token' },
      { role: 'assistant', kind: 'message', text: `Here is the token you asked for: ${SECRET}`, model: 'stand-in', usage },
    ]);
    assert.match(calls[0], /^call_/);
    const header = JSON.parse(FULL.toString('utf8').split('\n')[0]);
    assert.deepEqual(r.state.meta, { version: '3', agentSession: header.id, cwd: '/tmp/rec/project', startedAt: header.timestamp, model: 'stand-in', firstPrompt: 'Write hello into notes.txt and a poem into poem.txt' });
    // Every item has the agent's time; the secret the model printed is redacted by boundItem.
    for (const i of items) assert.match(String(i.at), /^2\d{3}-\d\d-\d\dT/);
    const last = boundItem('pi', header.id, items.at(-1)!, { workspace: '/tmp/rec/project', now: '2026-01-01T00:00:00.000Z' });
    assert.ok(!last.text.includes(SECRET) && last.text.includes('<redacted>'));
  });

  test('ids are pi entry ids (sub-items suffixed), unique, and the same on every parse', () => {
    const a = parse(FULL).items.map((i) => i.raw.item_id);
    const b = parse(FULL).items.map((i) => i.raw.item_id);
    assert.deepEqual(a, b);
    assert.equal(new Set(a).size, a.length);
    for (const id of a) assert.match(id, /^[0-9a-f]{8}(\.t\d+)?$/);
  });

  test('the resumed run appends: reading on from the first run’s end yields only the new items, with new ids', () => {
    const first = parse(FIRST);
    assert.equal(first.consumed, FIRST.length);
    assert.ok(FULL.subarray(0, FIRST.length).equals(FIRST));
    const more = parse(FULL.subarray(first.consumed), first.lines + 1, first.state);
    assert.deepEqual(
      more.items.map((i) => [i.raw.role, i.raw.kind]),
      [['user', 'message'], ['assistant', 'message']],
    );
    const old = new Set(first.items.map((i) => i.raw.item_id));
    for (const i of more.items) assert.ok(!old.has(i.raw.item_id));
    assert.deepEqual([...first.items, ...more.items].map((i) => i.raw.item_id), parse(FULL).items.map((i) => i.raw.item_id));
  });

  test('an unfinished last line is left unconsumed (the agent may still be writing it)', () => {
    const cut = FULL.subarray(0, FULL.length - 20);
    const r = parse(cut);
    assert.equal(r.consumed, FIRST.length + FULL.subarray(FIRST.length).indexOf(10) + 1);
    assert.equal(r.items.at(-1)!.raw.text, 'Print the deploy token');
    assert.deepEqual(r.skips, []);
  });

  test('a read call names its file, and its result carries readPath (a credential file then keeps metadata only)', () => {
    const lines = [
      { type: 'message', id: 'aaaa0001', parentId: null, timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'Look at the env file.' }, { type: 'thinking', thinking: '', thinkingSignature: 'opaque', redacted: true }, { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: '/tmp/rec/project/.env' } }], model: 'm1', usage: { input: 3, output: 4, cacheRead: 5, cacheWrite: 6 } } },
      { type: 'message', id: 'aaaa0002', parentId: 'aaaa0001', timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'TOKEN=abc' }], isError: false } },
      { type: 'compaction', id: 'aaaa0003', parentId: 'aaaa0002', timestamp: '2026-01-01T00:00:02.000Z', summary: 'We read the env file.', firstKeptEntryId: 'aaaa0001', tokensBefore: 100 },
      { type: 'custom_message', id: 'aaaa0004', parentId: 'aaaa0003', timestamp: '2026-01-01T00:00:03.000Z', customType: 'baton', content: 'TASK_POINTER_V2 …', display: false },
      { type: 'message', id: 'aaaa0005', parentId: 'aaaa0004', timestamp: '2026-01-01T00:00:04.000Z', message: { role: 'bashExecution', command: 'ls', output: 'a\nb', exitCode: 0, cancelled: false, truncated: false, timestamp: 1 } },
    ];
    const r = parse(Buffer.from(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`));
    assert.deepEqual(r.skips, []);
    assert.deepEqual(
      r.items.map((i) => [i.raw.item_id, i.raw.role, i.raw.kind, i.raw.text, i.raw.files ?? null, i.raw.readPath ?? null]),
      [
        ['aaaa0001.r0', 'assistant', 'reasoning', 'Look at the env file.', null, null],
        ['aaaa0001.t0', 'assistant', 'tool_call', '', ['/tmp/rec/project/.env'], null],
        ['aaaa0002', 'tool', 'tool_result', 'TOKEN=abc', null, '/tmp/rec/project/.env'],
        ['aaaa0003', 'system', 'compaction', 'We read the env file.', null, null],
        ['aaaa0005.c', 'user', 'tool_call', '', null, null],
        ['aaaa0005', 'tool', 'tool_result', 'a\nb', null, null],
      ],
    );
    // No text in the message: its model and usage go with the first item.
    assert.deepEqual([r.items[0].raw.model, r.items[0].raw.usage], ['m1', { input: 3, output: 4, cache_read: 5, cache_write: 6 }]);
    const stored = boundItem('pi', 's', r.items[2].raw, { workspace: '/tmp/rec/project', now: '2026-01-01T00:00:00.000Z' });
    assert.ok(!stored.text.includes('TOKEN=abc'));
    assert.match(stored.text, /credential file \.env/);
  });

  test('hostile input never throws: not JSON, an unknown shape, deep nesting, invalid UTF-8, a 9 MiB line are each skipped with a reason', () => {
    const good = FULL.toString('utf8').split('\n')[3];
    const bytes = Buffer.concat([
      Buffer.from('not json at all\n'),
      Buffer.from('{"type":"teleport","id":"x"}\n'),
      Buffer.from('{"type":"message","id":"y","message":{"role":"alien"}}\n'),
      Buffer.from('[1,2]\n'),
      Buffer.from(`${'['.repeat(5000)}${']'.repeat(5000)}\n`),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
      Buffer.from(`{"type":"message","id":"z","message":{"role":"user","content":"${'x'.repeat(9 * 1024 * 1024)}"}}\n`),
      Buffer.from(`${good}\n`),
    ]);
    const r = parse(bytes);
    assert.deepEqual(
      r.skips.map((s) => [s.line, s.reason.replace(/ ".*/, '')]),
      [
        [1, 'not JSON'],
        [2, 'pi entry type'],
        [3, 'pi message role'],
        [4, 'pi entry is not an object'],
        [5, 'nested too deep'],
        [6, 'invalid UTF-8'],
        [7, 'line too large'],
      ],
    );
    assert.deepEqual(
      r.items.map((i) => [i.line, i.raw.kind]),
      [[8, 'message']],
    );
    assert.equal(r.consumed, bytes.length);
  });

  test('a header of a newer session format stops the file, naming the version', () => {
    const r = parse(Buffer.from(`${JSON.stringify({ type: 'session', version: 4, id: 'x', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' })}\n${FULL.toString('utf8')}`));
    assert.equal(r.unknownVersion, '4');
    assert.equal(r.items.length, 0);
  });

  test('roots, list and locate follow PI_CODING_AGENT_SESSION_DIR / PI_CODING_AGENT_DIR / ~/.pi/agent and the project folder', () => {
    const home = tmpDir('baton-pi-reader-');
    try {
      assert.deepEqual(piReader.roots({ home, env: {} }), [join(home, '.pi', 'agent', 'sessions')]);
      assert.deepEqual(piReader.roots({ home, env: { PI_CODING_AGENT_DIR: '~/agentdir' } }), [join(home, 'agentdir', 'sessions')]);
      assert.deepEqual(piReader.roots({ home, env: { PI_CODING_AGENT_DIR: '/x', PI_CODING_AGENT_SESSION_DIR: '/y/s' } }), ['/y/s']);
      const re = { home, env: {} };
      assert.deepEqual([...piReader.list(re)], []);
      assert.equal(piReader.locate(re, 'abc', '/p'), null);
      const folder = join(home, '.pi', 'agent', 'sessions', piProjectFolder('/tmp/rec/project'));
      assert.equal(piProjectFolder('/tmp/rec/project'), '--tmp-rec-project--');
      fs.mkdirSync(folder, { recursive: true });
      const id = '01a23430-394c-71b0-b4fc-0c155cb7c9cd';
      const file = join(folder, `2026-12-02T00-38-25-376Z_${id}.jsonl`);
      fs.writeFileSync(file, FULL);
      fs.writeFileSync(join(folder, 'notes.txt'), '');
      assert.deepEqual([...piReader.list(re)], [{ path: file, agentSession: id }]);
      assert.equal(piReader.locate(re, id, '/tmp/rec/project'), file);
      assert.equal(piReader.locate(re, id, '/elsewhere'), file);
      assert.equal(piReader.locate(re, 'other', '/tmp/rec/project'), null);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
