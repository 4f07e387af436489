// The GitHub Copilot CLI reader over the events.jsonl Copilot 1.0.102 wrote
// (test/e2e/record-transcripts-copilot.ts: a run, a --resume run, a /compact): the exact items,
// usage from the usage record before each message, files of create/view/edit, the compaction
// summary, the format version check, the store layout (COPILOT_HOME), and the reader contract.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { copilotReader } from '../src/transcripts/copilot.ts';
import { newParseState, parseJsonlChunk } from '../src/transcripts/parse.ts';
import { ROOT, tmpDir } from './helpers.ts';
import { parseAll, readerContract } from './transcript-reader-contract.ts';

const FILE = join(ROOT, 'test', 'fixtures', 'transcripts', 'copilot', 'copilot-1.0.102-session.jsonl');
const bytes = fs.readFileSync(FILE);
const SID = '4db2212c-6562-4695-aea2-56493c2bf911';
const usage = { input: 12, output: 6, cache_read: 0, cache_write: 0 };
const temps: string[] = [];
after(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

test('copilot: the items of a run, its resume and a compaction, exactly', () => {
  const state = newParseState();
  const out = parseJsonlChunk(copilotReader, bytes, 1, state);
  const items = out.items.map((i) => {
    const { at, item_id, ...rest } = i.raw;
    assert.ok(typeof at === 'string' && !Number.isNaN(Date.parse(at)));
    assert.match(item_id, /^([0-9a-f-]{36}|call_\w+)$/);
    return rest;
  });
  const bash = items[2] as any;
  const create = items[4] as any;
  assert.deepEqual(items, [
    { role: 'user', kind: 'message', text: 'Write the notes file' },
    { role: 'assistant', kind: 'message', text: 'I will write the notes file first.', model: 'stand-in', usage },
    { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'bash', call_id: bash.tool.call_id, input: { command: "printf 'hello\\n' > notes.txt", description: 'publish the task pointer' } }, files: [], model: 'stand-in' },
    { role: 'tool', kind: 'tool_result', text: '\n<shellId: 0 completed with exit code 0>', tool: { name: 'bash', call_id: bash.tool.call_id } },
    { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'create', call_id: create.tool.call_id, input: { path: '/home/u/proj/todo.md', file_text: '- write the notes\n' } }, files: ['/home/u/proj/todo.md'], model: 'stand-in', usage },
    { role: 'tool', kind: 'tool_result', text: 'Created file /home/u/proj/todo.md with 18 characters', tool: { name: 'create', call_id: create.tool.call_id } },
    { role: 'assistant', kind: 'message', text: 'Done: notes.txt and todo.md are written. The token is ghp_A1b2C3d4E5f6G7h8I9j0A1b2C3d4E5f6G7h8.', model: 'stand-in', usage },
    { role: 'user', kind: 'message', text: 'Are the notes there?' },
    { role: 'assistant', kind: 'message', text: 'Resumed: the notes are still there.', model: 'stand-in', usage },
    { role: 'system', kind: 'compaction', text: '<summary>The notes file was written and checked.</summary>' },
  ]);
  assert.equal(out.items[2].raw.item_id, bash.tool.call_id, "a tool call's id is its toolCallId");
  const { runs, ...meta } = state.meta;
  assert.deepEqual(meta, { agentSession: SID, version: '1.0.102', cwd: '/home/u/proj', model: 'stand-in', startedAt: '2026-12-02T00:41:58.134Z', firstPrompt: 'Write the notes file' });
  // session.start, then two session.resume: three runs, each ended by session.shutdown.
  assert.deepEqual(
    runs?.map((r) => [r.line, r.source, r.prompts, r.ended]),
    [
      [1, 'startup', 1, 'routine'],
      [38, 'resume', 1, 'routine'],
      [53, 'resume', 0, 'routine'],
    ],
  );
});

test('copilot: a view result names the file it read; a newer format version stops the file; unknown events are SkipLine', () => {
  const line = (o: unknown) => Buffer.from(`${JSON.stringify(o)}\n`);
  const ev = (type: string, id: string, data: unknown) => line({ type, id, timestamp: '2026-12-02T00:00:00.000Z', parentId: null, data });
  const input = Buffer.concat([
    ev('assistant.message', 'a1', { model: 'm', content: '', toolRequests: [{ toolCallId: 'c1', name: 'view', arguments: { path: '/p/.env' } }] }),
    ev('tool.execution_complete', 'r1', { toolCallId: 'c1', success: true, result: { content: 'SECRET=1' } }),
    ev('brand.new_event', 'x1', {}),
    ev('session.something_new', 'x2', {}),
  ]);
  const out = parseAll(copilotReader, input);
  assert.deepEqual(out.items[0].raw.files, ['/p/.env']);
  assert.equal(out.items[1].raw.readPath, '/p/.env');
  assert.deepEqual(
    out.skips.map((s) => s.line),
    [3],
  );
  const v2 = parseAll(copilotReader, Buffer.concat([ev('session.start', 's', { sessionId: SID, version: 2 }), bytes]));
  assert.equal(v2.unknownVersion, '2');
  assert.deepEqual(v2.items, []);
});

test('copilot: roots, list and locate follow $COPILOT_HOME (else ~/.copilot) with readdir only', () => {
  const home = tmpDir();
  temps.push(home);
  const dir = join(home, '.copilot', 'session-state', SID);
  fs.mkdirSync(join(home, '.copilot', 'session-state', '.session-operation-locks'), { recursive: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(join(dir, 'events.jsonl'), '');
  const re = { home, env: {} };
  assert.deepEqual(copilotReader.roots(re), [join(home, '.copilot', 'session-state')]);
  assert.deepEqual([...copilotReader.list(re)], [{ path: join(dir, 'events.jsonl'), agentSession: SID }]);
  assert.equal(copilotReader.locate(re, SID, null), join(dir, 'events.jsonl'));
  assert.equal(copilotReader.locate(re, '00000000-0000-4000-8000-000000000000', null), null);
  assert.equal(copilotReader.locate(re, '../x', null), null);
  assert.equal(copilotReader.locate({ home: '/nowhere', env: { COPILOT_HOME: join(home, '.copilot') } }, SID, null), join(dir, 'events.jsonl'));
});

readerContract(copilotReader, bytes, 37, JSON.stringify({ type: 'brand.new_event', id: 'x', timestamp: 't', data: {} }));
