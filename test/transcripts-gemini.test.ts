// The Gemini CLI reader over the chat files Gemini CLI 0.61.0 itself wrote offline
// (test/fixtures/transcripts/gemini/, recorded by test/e2e/record-transcripts-gemini.ts): a
// `-p` run, then `--resume ID -p`, which appends to the original file (listing every message
// again in a `$set`) and leaves a stub file of its own. Exact items, ids stable across reads
// and rewrites, a resumed run adding only new ids, hostile lines, and where the files are.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { RawItem } from '../src/core/transcript.ts';
import { geminiReader } from '../src/transcripts/gemini.ts';
import { tmpDir } from './helpers.ts';
import { newParseState, parseJsonlChunk } from '../src/transcripts/parse.ts';
import { assertHostileSkipped, assertTruncatedLastLine, fixture, lineOf, offsetAfterLine, parseAll, view } from './transcripts-helpers.ts';

const MAIN = 'gemini-0.61.0-session-2026-12-02T00-42-8d5c137a.jsonl';
const STUB = 'gemini-0.61.0-session-2026-12-02T00-43-8d5c137a.jsonl';
const SAME_MINUTE = 'gemini-0.61.0-resume-same-minute-2026-12-02T01-50-14d93b08.jsonl';
const bytes = fixture('gemini', MAIN);
const MODEL = 'gemini-2.5-flash';
const USAGE = { input: 12, output: 6, cache_read: 0 };
const SECRET = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;

/** The last record of each item id, in the order ids first appear (what capture keeps: a changed record supersedes). */
function latest(items: RawItem[]): RawItem[] {
  const m = new Map<string, RawItem>();
  for (const i of items) {
    if (m.has(i.item_id)) m.delete(i.item_id);
    m.set(i.item_id, i);
  }
  const order = [...new Set(items.map((i) => i.item_id))];
  return order.map((id) => m.get(id)!);
}

describe('Gemini CLI 0.61.0 transcript reader', () => {
  test('every item of the session: prompts, answers (model, usage), tool calls with files, their results; the CLI context left out', () => {
    const r = parseAll(geminiReader, bytes);
    assert.deepEqual(r.skips, []);
    const items = latest(r.items.map((i) => i.raw));
    const shell = 'run_shell_command__run_shell_command_1796172165337_0';
    const write = 'write_file__write_file_1796172167758_0';
    assert.deepEqual(
      items.map((i) => view(i)),
      [
        { role: 'user', kind: 'message', text: 'Write hello into notes.txt, then a plan in plan.md.' },
        { role: 'assistant', kind: 'message', text: 'I will write notes.txt first.', model: MODEL, usage: USAGE },
        { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'run_shell_command', call_id: shell, input: { command: "printf 'hello\\n' > notes.txt", description: 'Run a shell command' } }, model: MODEL },
        { role: 'tool', kind: 'tool_result', text: '<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 16119\n</untrusted_context>', tool: { name: 'run_shell_command', call_id: shell }, model: MODEL },
        { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'write_file', call_id: write, input: { file_path: '/home/u/proj/plan.md', content: '# Plan\n\n- say hello\n' } }, files: ['/home/u/proj/plan.md'], model: MODEL, usage: USAGE },
        { role: 'tool', kind: 'tool_result', text: 'Successfully created and wrote to new file: /home/u/proj/plan.md. Here is the updated code:\n# Plan\n\n- say hello\n', tool: { name: 'write_file', call_id: write }, model: MODEL },
        { role: 'assistant', kind: 'message', text: 'Both files are written: notes.txt and plan.md.', model: MODEL, usage: USAGE },
        { role: 'user', kind: 'message', text: 'Print the token.' },
        { role: 'assistant', kind: 'message', text: `The token you asked for is ${SECRET} (a fake).`, model: MODEL, usage: USAGE },
      ],
    );
    assert.deepEqual(
      items.slice(1, 4).map((i) => i.item_id),
      ['42407ae6-6a5d-4bea-8b0d-f435c90ac55e', `42407ae6-6a5d-4bea-8b0d-f435c90ac55e:${shell}`, `42407ae6-6a5d-4bea-8b0d-f435c90ac55e:${shell}:result`],
    );
    assert.deepEqual(r.state.meta, {
      agentSession: '8d5c137a-dd97-430d-8bdd-ae3ce6ead11a',
      startedAt: '2026-12-02T00:42:43.335Z',
      cwd: '/home/u/proj',
      firstPrompt: 'Write hello into notes.txt, then a plan in plan.md.',
      model: MODEL,
    });
  });

  test('a record written again under its id, or listed again by the resume, gives the same item ids with the same content (never a new item)', () => {
    const a = parseAll(geminiReader, bytes).items.map((i) => i.raw);
    assert.deepEqual(
      parseAll(geminiReader, bytes).items.map((i) => i.raw),
      a,
    );
    const first = new Map<string, RawItem>();
    for (const i of a) {
      const seen = first.get(i.item_id);
      if (seen) assert.deepEqual(i, seen, `item ${i.item_id} changed when written again`);
      else first.set(i.item_id, i);
    }
    assert.ok(first.size < a.length, 'the file repeats records');
  });

  test('the resumed run (gemini --resume ID -p) adds only new ids to the original file; its stub file holds no item', () => {
    // The resume appends to the original file: `$set.messages` lists the first run's messages
    // again (same ids, same items), then the new turn under new ids.
    const whole = parseAll(geminiReader, bytes).items.map((i) => i.raw);
    const cut = offsetAfterLine(bytes, lineOf(bytes, /"\$set":\{"sessionId"/));
    const state = newParseState();
    const first = parseJsonlChunk(geminiReader, bytes.subarray(0, cut), 1, state).items.map((i) => i.raw);
    const added = parseJsonlChunk(geminiReader, bytes.subarray(cut), lineOf(bytes, /"\$set":\{"sessionId"/) + 1, state).items.map((i) => i.raw);
    assert.deepEqual([...first, ...added], whole);
    const before = new Map(first.map((i) => [i.item_id, i]));
    for (const i of added) if (before.has(i.item_id)) assert.deepEqual(i, before.get(i.item_id), `re-listed ${i.item_id} changed`);
    const fresh = added.filter((i) => !before.has(i.item_id));
    assert.deepEqual(
      fresh.map((i) => i.text),
      ['Print the token.', `The token you asked for is ${SECRET} (a fake).`],
    );
    const stub = parseAll(geminiReader, fixture('gemini', STUB));
    assert.deepEqual(stub.items, []);
    assert.deepEqual(stub.skips, []);
    assert.equal(stub.state.meta.agentSession, '8d5c137a-dd97-430d-8bdd-ae3ce6ead11a');
  });

  test('a resume in the same minute re-lists the conversation in the original file (new times, no tokens): no item is recorded again with less, across a cursor', () => {
    // Recorded by test/e2e/transcripts.test.ts (Gemini CLI 0.61.0, `gemini --resume ID -p` less
    // than a minute after the first run): no stub, a second header and two `$set.messages` in
    // the original file, the model messages rebuilt without `tokens` or `model`.
    const b = fixture('gemini', SAME_MINUTE);
    const header = lineOf(b, /"startTime":"2026-12-02T01:50:24/);
    assert.ok(header > 2, 'the resumed run wrote a second header into the file');
    const whole = parseAll(geminiReader, b);
    assert.deepEqual(whole.skips, []);
    const byId = new Map<string, RawItem>();
    for (const i of whole.items.map((x) => x.raw)) {
      const seen = byId.get(i.item_id);
      if (seen) assert.deepEqual(view(i), view(seen), `item ${i.item_id} would supersede its record`);
      else byId.set(i.item_id, i);
    }
    // Read as two captures (the first run's turn end, then the resume's), the state through JSON as the cursor keeps it.
    const cut = offsetAfterLine(b, header - 1);
    const state = newParseState();
    const first = parseJsonlChunk(geminiReader, b.subarray(0, cut), 1, state).items.map((i) => i.raw);
    const carried = JSON.parse(JSON.stringify(state));
    const added = parseJsonlChunk(geminiReader, b.subarray(cut), header, carried).items.map((i) => i.raw);
    const before = new Set(first.map((i) => i.item_id));
    assert.deepEqual(
      added.filter((i) => before.has(i.item_id)).map((i) => i.item_id),
      [],
      'the re-listed messages came back',
    );
    assert.deepEqual(
      added.map((i) => [i.role, i.kind, i.text]),
      [
        ['user', 'message', 'Are the notes still there?'],
        ['assistant', 'message', 'Resumed: notes.txt and plan.md are still there.'],
      ],
    );
  });

  test('a last line still being written is left unconsumed and read whole later', () => {
    assertTruncatedLastLine(geminiReader, bytes, lineOf(bytes, /"type":"gemini","content":"The token/));
  });

  test('hostile lines are counted skips, never a throw', () => {
    const good = bytes.toString('utf8').split('\n')[lineOf(bytes, /"text":"Print the token\."/) - 1];
    assertHostileSkipped(geminiReader, good, ['{"type":"user"}', '{"id":"x","type":"hologram","content":"?"}', '[1,2,3]', '{"id":5}', '"a string"']);
  });

  test('roots, list and locate: ~/.gemini/tmp/<project>/chats (or $GEMINI_CLI_HOME/.gemini), the original file before its resume stub', () => {
    const home = tmpDir('baton-gemini-reader-');
    const chats = join(home, '.gemini', 'tmp', 'project', 'chats');
    fs.mkdirSync(chats, { recursive: true });
    const main = join(chats, 'session-2026-12-02T00-42-8d5c137a.jsonl');
    const stub = join(chats, 'session-2026-12-02T00-43-8d5c137a.jsonl');
    fs.writeFileSync(main, bytes);
    fs.writeFileSync(stub, fixture('gemini', STUB));
    fs.symlinkSync(main, join(chats, 'session-2026-12-03T00-00-8d5c137a.jsonl'));
    const re = { home, env: {} };
    assert.deepEqual(geminiReader.roots(re), [join(home, '.gemini', 'tmp')]);
    assert.deepEqual([...geminiReader.list(re)], [{ path: main }, { path: stub }]);
    assert.equal(geminiReader.locate(re, '8d5c137a-dd97-430d-8bdd-ae3ce6ead11a', '/home/u/proj'), main);
    assert.equal(geminiReader.locate(re, '00000000-dd97-430d-8bdd-ae3ce6ead11a', null), null);
    assert.equal(geminiReader.locate(re, '../../x', null), null);
    assert.deepEqual(geminiReader.roots({ home, env: { GEMINI_CLI_HOME: '/g' } }), ['/g/.gemini/tmp']);
  });
});
