// The Factory Droid reader over the session file Droid 0.225.2 wrote in `droid exec`
// (test/e2e/record-transcripts-droid.ts): the exact items, hook and harness records left out,
// files of Create/Read/Edit, the format version check, the store layout
// (FACTORY_HOME_OVERRIDE), and the reader contract (the "resumed" part is the exec's final
// answer: `droid exec -s ID` needs Factory's cloud, so no resumed run could be recorded offline).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { droidReader } from '../src/transcripts/droid.ts';
import { newParseState, parseJsonlChunk } from '../src/transcripts/parse.ts';
import { ROOT, tmpDir } from './helpers.ts';
import { parseAll, readerContract } from './transcript-reader-contract.ts';

const FILE = join(ROOT, 'test', 'fixtures', 'transcripts', 'droid', 'droid-0.225.2-session.jsonl');
const bytes = fs.readFileSync(FILE);
const SID = 'ef1fd16d-0dc4-4a54-9b08-4fe0c6b69f0c';
const temps: string[] = [];
after(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

test('droid: the items of an exec run, exactly', () => {
  const state = newParseState();
  const out = parseJsonlChunk(droidReader, bytes, 1, state);
  const items = out.items.map((i) => {
    const { at, item_id, ...rest } = i.raw;
    assert.ok(typeof at === 'string' && !Number.isNaN(Date.parse(at)));
    assert.match(item_id, /^([0-9a-f-]{36}|call_\w+|result:call_\w+)$/);
    return rest;
  });
  const exec = items[2] as any;
  const create = items[4] as any;
  const model = 'custom:Standin-0';
  assert.deepEqual(items, [
    { role: 'user', kind: 'message', text: 'Write the notes file' },
    { role: 'assistant', kind: 'message', text: 'I will write the notes file first.', model },
    {
      role: 'assistant',
      kind: 'tool_call',
      text: '',
      tool: { name: 'Execute', call_id: exec.tool.call_id, input: { command: "printf 'hello\\n' > notes.txt", summary: 'Publish the task pointer', riskLevelReason: 'It writes one record into the baton store.', riskLevel: 'low' } },
      files: [],
      model,
    },
    { role: 'tool', kind: 'tool_result', text: 'Command completed successfully\n\n[Process exited with code 0]', tool: { name: 'Execute', call_id: exec.tool.call_id } },
    { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'Create', call_id: create.tool.call_id, input: { file_path: '/home/u/proj/todo.md', content: '- write the notes\n' } }, files: ['/home/u/proj/todo.md'], model },
    { role: 'tool', kind: 'tool_result', text: '{"success":true,"file_path":"/home/u/proj/todo.md"}', tool: { name: 'Create', call_id: create.tool.call_id } },
    { role: 'assistant', kind: 'message', text: 'Done: notes.txt and todo.md are written. The token is ghp_A1b2C3d4E5f6G7h8I9j0A1b2C3d4E5f6G7h8.', model },
  ]);
  assert.deepEqual(state.meta, { agentSession: SID, cwd: '/home/u/proj', version: '2', startedAt: state.meta.startedAt, firstPrompt: 'Write the notes file', model });
});

test('droid: a Read result names the file it read; a newer format version stops the file; unknown lines are SkipLine', () => {
  const line = (o: unknown) => Buffer.from(`${JSON.stringify(o)}\n`);
  const msg = (id: string, message: unknown) => line({ type: 'message', id, timestamp: '2026-12-02T00:00:00.000Z', message });
  const input = Buffer.concat([
    msg('a1', { role: 'assistant', content: [{ type: 'thinking', thinking: 'hidden' }, { type: 'tool_use', id: 'c1', name: 'Read', input: { file_path: '/p/id_rsa' } }], modelId: 'm' }),
    msg('u1', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'KEY' }] }),
    line({ type: 'brand_new', id: 'x' }),
  ]);
  const out = parseAll(droidReader, input);
  assert.deepEqual(
    out.items.map((i) => [i.raw.kind, i.raw.files ?? i.raw.readPath]),
    [
      ['tool_call', ['/p/id_rsa']],
      ['tool_result', '/p/id_rsa'],
    ],
  );
  assert.deepEqual(
    out.skips.map((s) => s.line),
    [3],
  );
  const v3 = parseAll(droidReader, Buffer.concat([line({ type: 'session_start', id: SID, version: 3 }), bytes]));
  assert.equal(v3.unknownVersion, '3');
});

test('droid: roots, list and locate follow $FACTORY_HOME_OVERRIDE (else HOME) with readdir only', () => {
  const home = tmpDir();
  temps.push(home);
  const dir = join(home, '.factory', 'sessions', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  const file = join(dir, `${SID}.jsonl`);
  fs.writeFileSync(file, '');
  fs.writeFileSync(join(dir, `${SID}.settings.json`), '{}');
  const re = { home, env: {} };
  assert.deepEqual(droidReader.roots(re), [join(home, '.factory', 'sessions')]);
  assert.deepEqual([...droidReader.list(re)], [{ path: file, agentSession: SID }]);
  assert.equal(droidReader.locate(re, SID, '/home/u/proj'), file);
  assert.equal(droidReader.locate(re, SID, null), file);
  assert.equal(droidReader.locate(re, '00000000-0000-4000-8000-000000000000', null), null);
  assert.equal(droidReader.locate(re, '../x', null), null);
  assert.equal(droidReader.locate({ home: '/nowhere', env: { FACTORY_HOME_OVERRIDE: home } }, SID, null), file);
});

readerContract(droidReader, bytes, 8, JSON.stringify({ type: 'brand_new', id: 'x' }));
