// The Qwen Code reader over the transcript Qwen Code 0.24.4 itself wrote offline
// (test/fixtures/transcripts/qwen/, recorded by test/e2e/record-transcripts-qwen.ts): exact
// items, stable ids, a resumed run adding only new ids, a line still being written, hostile
// lines, the compression record's shape, and where it finds the files.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { newParseState, parseJsonlChunk } from '../src/transcripts/parse.ts';
import { qwenReader } from '../src/transcripts/qwen.ts';
import { tmpDir } from './helpers.ts';
import { assertHostileSkipped, assertResumeAddsOnlyNew, assertStableIds, assertTruncatedLastLine, fixture, lineOf, parseAll, view } from './transcripts-helpers.ts';

const bytes = fixture('qwen', 'qwen-0.24.4-session.jsonl');
const USAGE = { input: 12, output: 6, cache_read: 0 };
const SECRET = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;

describe('Qwen Code 0.24.4 transcript reader', () => {
  test('every item of the session, in order, with model, usage, tool names, inputs and files', () => {
    const r = parseAll(qwenReader, bytes);
    assert.deepEqual(r.skips, []);
    const items = r.items.map((i) => view(i.raw));
    const shell = (items[2].tool as { call_id: string }).call_id;
    const write = (items[4].tool as { call_id: string }).call_id;
    assert.deepEqual(items, [
      { role: 'user', kind: 'message', text: 'Write hello into notes.txt, then a plan in plan.md.' },
      { role: 'assistant', kind: 'message', text: 'I will write notes.txt first.', model: 'stand-in', usage: USAGE },
      { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'run_shell_command', call_id: shell, input: { command: "printf 'hello\\n' > notes.txt", description: 'publish the task pointer' } }, model: 'stand-in' },
      {
        role: 'tool',
        kind: 'tool_result',
        text: "Command: printf 'hello\\n' > notes.txt\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)",
        tool: { name: 'run_shell_command', call_id: shell },
      },
      { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'write_file', call_id: write, input: { file_path: '/home/u/proj/plan.md', content: '# Plan\n\n- say hello\n' } }, files: ['/home/u/proj/plan.md'], model: 'stand-in', usage: USAGE },
      { role: 'tool', kind: 'tool_result', text: 'Successfully created and wrote to new file: /home/u/proj/plan.md.', tool: { name: 'write_file', call_id: write } },
      { role: 'assistant', kind: 'message', text: 'Both files are written: notes.txt and plan.md.', model: 'stand-in', usage: USAGE },
      { role: 'user', kind: 'message', text: 'Print the token.' },
      { role: 'assistant', kind: 'message', text: `The token you asked for is ${SECRET} (a fake).`, model: 'stand-in', usage: USAGE },
    ]);
    assert.match(shell, /^call_/);
    assert.deepEqual(
      r.items.slice(1, 3).map((i) => i.raw.item_id),
      ['c839e019-d1cd-4107-b9f8-6692914092db', 'c839e019-d1cd-4107-b9f8-6692914092db:1'],
      "the line's uuid, then uuid:n for its further items",
    );
    assert.deepEqual(r.state.meta, {
      agentSession: 'e9dbde53-f4e1-4746-ad77-d0847e9b52f8',
      cwd: '/home/u/proj',
      version: '0.24.4',
      startedAt: '2026-12-02T00:40:49.996Z',
      firstPrompt: 'Write hello into notes.txt, then a plan in plan.md.',
      model: 'stand-in',
    });
  });

  test('item ids are the same on every read of the file, and unique', () => {
    assertStableIds(qwenReader, bytes);
  });

  test('the resumed run (qwen --resume ID -p) adds only new ids', () => {
    const { added } = assertResumeAddsOnlyNew(qwenReader, bytes, lineOf(bytes, /"text":"Print the token\."/) - 1);
    assert.deepEqual(
      added.map((i) => i.text),
      ['Print the token.', `The token you asked for is ${SECRET} (a fake).`],
    );
  });

  test('a last line still being written is left unconsumed and read whole later', () => {
    assertTruncatedLastLine(qwenReader, bytes, lineOf(bytes, /"type":"assistant".*ghp_A1b2/));
  });

  test('hostile lines are counted skips, never a throw', () => {
    const good = bytes.toString('utf8').split('\n')[lineOf(bytes, /"text":"Print the token\."/) - 1];
    assertHostileSkipped(qwenReader, good, ['{"type":"hologram","uuid":"x"}', '{"uuid":"x"}', '[1,2,3]', '{"type":"user","uuid":"u1"}', '{"type":"assistant","uuid":"a1","message":{"parts":"no"}}', '{"type":"user","message":{"parts":[]}}']);
  });

  test('a chat_compression record (its shape from the 0.24.4 source, not yet seen written) is the compaction summary', () => {
    const line = JSON.stringify({
      uuid: 'c0',
      parentUuid: null,
      sessionId: 's',
      timestamp: '2026-12-02T00:41:59.500Z',
      type: 'system',
      subtype: 'chat_compression',
      systemPayload: { info: {}, compressedHistory: [{ role: 'user', parts: [{ text: '<state_snapshot>done</state_snapshot>' }] }, { role: 'model', parts: [{ text: 'Got it. Thanks for the additional context!' }] }] },
    });
    const r = parseJsonlChunk(qwenReader, Buffer.from(`${line}\n`), 1, newParseState());
    assert.deepEqual(
      r.items.map((i) => view(i.raw)),
      [{ role: 'system', kind: 'compaction', text: '<state_snapshot>done</state_snapshot>' }],
    );
  });

  test('roots, list and locate: ~/.qwen/projects/<cwd>/chats, or under $QWEN_RUNTIME_DIR, else $QWEN_HOME', () => {
    const home = tmpDir('baton-qwen-reader-');
    const id = 'e9dbde53-f4e1-4746-ad77-d0847e9b52f8';
    const chats = join(home, '.qwen', 'projects', '-home-u-proj', 'chats');
    fs.mkdirSync(chats, { recursive: true });
    fs.writeFileSync(join(chats, `${id}.jsonl`), bytes);
    fs.symlinkSync(join(chats, `${id}.jsonl`), join(chats, 'linked.jsonl'));
    const re = { home, env: {} };
    assert.deepEqual(qwenReader.roots(re), [join(home, '.qwen', 'projects')]);
    assert.deepEqual([...qwenReader.list(re)], [{ path: join(chats, `${id}.jsonl`), agentSession: id }]);
    assert.equal(qwenReader.locate(re, id, '/home/u/proj'), join(chats, `${id}.jsonl`));
    assert.equal(qwenReader.locate(re, id, null), join(chats, `${id}.jsonl`));
    assert.equal(qwenReader.locate(re, 'linked', null), null);
    assert.equal(qwenReader.locate(re, '../x', null), null);
    assert.deepEqual(qwenReader.roots({ home, env: { QWEN_HOME: '/q' } }), ['/q/projects']);
    assert.deepEqual(qwenReader.roots({ home, env: { QWEN_HOME: '/q', QWEN_RUNTIME_DIR: '~/rt' } }), [join(home, 'rt', 'projects')]);
    assert.equal(qwenReader.locate({ home, env: { QWEN_HOME: join(home, 'none') } }, id, '/home/u/proj'), null);
  });
});
