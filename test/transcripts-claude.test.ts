// The Claude Code reader over the transcript Claude Code 2.1.328 itself wrote offline
// (test/fixtures/transcripts/claude/, recorded by test/e2e/record-transcripts-claude.ts):
// exact items, stable ids, a resumed run adding only new ids, a line still being written,
// hostile lines, and where it finds the files (roots, list, locate) in a temp HOME.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { claudeReader } from '../src/transcripts/claude.ts';
import { tmpDir } from './helpers.ts';
import { assertHostileSkipped, assertResumeAddsOnlyNew, assertStableIds, assertTruncatedLastLine, fixture, lineOf, parseAll, view } from './transcripts-helpers.ts';

const FILE = 'claude-2.1.328-session.jsonl';
const bytes = fixture('claude', FILE);
const MODEL = 'claude-opus-5-5';
const USAGE = { input: 12, output: 6, cache_read: 0, cache_write: 0 };
const SECRET = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;

describe('Claude Code 2.1.328 transcript reader', () => {
  test('every item of the session, in order: prompts, answers (model, usage once per API message), tool calls with their files, results, the compaction', () => {
    const r = parseAll(claudeReader, bytes);
    assert.deepEqual(r.skips, []);
    const items = r.items.map((i) => view(i.raw));
    const bash = items[2].tool as { call_id: string };
    const write = items[4].tool as { call_id: string };
    assert.deepEqual(items.slice(0, 10), [
      { role: 'user', kind: 'message', text: 'Write hello into notes.txt, then a plan in plan.md.' },
      { role: 'assistant', kind: 'message', text: 'I will write notes.txt first.', model: MODEL, usage: USAGE },
      { role: 'assistant', kind: 'tool_call', text: '', tool: { name: 'Bash', call_id: bash.call_id, input: { command: "printf 'hello\\n' > notes.txt", description: 'Run a shell command' } }, model: MODEL },
      { role: 'tool', kind: 'tool_result', text: '(Bash completed with no output)', tool: { name: 'Bash', call_id: bash.call_id } },
      {
        role: 'assistant',
        kind: 'tool_call',
        text: '',
        tool: { name: 'Write', call_id: write.call_id, input: { file_path: '/home/u/proj/plan.md', content: '# Plan\n\n- say hello\n' } },
        files: ['/home/u/proj/plan.md'],
        model: MODEL,
        usage: USAGE,
      },
      { role: 'tool', kind: 'tool_result', text: 'File created successfully at: /home/u/proj/plan.md (file state is current in your context — no need to Read it back)', tool: { name: 'Write', call_id: write.call_id } },
      { role: 'assistant', kind: 'message', text: 'Both files are written: notes.txt and plan.md.', model: MODEL, usage: USAGE },
      { role: 'user', kind: 'message', text: 'Print the token.' },
      { role: 'assistant', kind: 'message', text: `The token you asked for is ${SECRET} (a fake).`, model: MODEL, usage: USAGE },
      items[9],
    ]);
    assert.match(bash.call_id, /^toolu_/);
    assert.equal(items[9].role, 'system');
    assert.equal(items[9].kind, 'compaction');
    assert.match(String(items[9].text), /Summary:\nThe user asked for notes\.txt and plan\.md; both are written\./);
    assert.deepEqual(items.slice(10), [
      { role: 'user', kind: 'message', text: '/compact' },
      { role: 'system', kind: 'message', text: 'Compacted (ctrl+o to see full summary)\nPreCompact [jq -c . >> "$HOME/hook-log.jsonl"] completed successfully' },
    ]);
    // Item ids are Claude Code's own uuids; the meta names the session.
    for (const i of r.items) assert.match(i.raw.item_id, /^[0-9a-f-]{36}$/);
    assert.equal(r.state.meta.agentSession, 'f83ca806-e50c-40a0-8f40-dbce88cf6256');
    assert.equal(r.state.meta.cwd, '/home/u/proj');
    assert.equal(r.state.meta.version, '2.1.328');
    assert.equal(r.state.meta.model, MODEL);
    assert.equal(r.state.meta.firstPrompt, 'Write hello into notes.txt, then a plan in plan.md.');
    assert.equal(r.state.meta.startedAt, '2026-12-02T00:38:11.045Z');
    // `claude -p`, then two `--resume -p` runs in the same file: each prompt line's
    // turnPosition.promptIndex starts at 0 again.
    assert.deepEqual(
      r.state.meta.runs?.map((x) => [x.line, x.source, x.at, x.last, x.prompts]),
      [
        [1, 'startup', '2026-12-02T00:38:11.045Z', '2026-12-02T00:38:13.513Z', 1],
        [38, 'resume', '2026-12-02T00:38:19.410Z', '2026-12-02T00:38:20.248Z', 1],
        [51, 'resume', '2026-12-02T00:38:26.661Z', '2026-12-02T00:38:27.059Z', 1],
      ],
    );
  });

  test('item ids are the same on every read of the file, and unique', () => {
    assertStableIds(claudeReader, bytes);
  });

  test('the resumed run (claude --resume ID -p) adds only new ids', () => {
    const { added } = assertResumeAddsOnlyNew(claudeReader, bytes, lineOf(bytes, /"type":"cost-state"/));
    assert.deepEqual(
      added.slice(0, 2).map((i) => i.text),
      ['Print the token.', `The token you asked for is ${SECRET} (a fake).`],
    );
  });

  test('a last line still being written is left unconsumed and read whole later', () => {
    assertTruncatedLastLine(claudeReader, bytes, lineOf(bytes, /ghp_A1b2/));
  });

  test('hostile lines (not JSON, unknown shapes, deep nesting, invalid UTF-8, 9 MiB) are counted skips, never a throw', () => {
    const good = bytes.toString('utf8').split('\n')[lineOf(bytes, /"role":"user","content":"Print the token\."/) - 1];
    assertHostileSkipped(claudeReader, good, ['{"type":"hologram","uuid":"x"}', '{"uuid":"x"}', '[1,2,3]', '"a string"', '{"type":"user","uuid":"u1"}', '{"type":"assistant","uuid":"a1","message":{"content":"not blocks"}}']);
  });

  test('roots, list and locate: ~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects; readdir only, symlinks not taken', () => {
    const home = tmpDir('baton-claude-reader-');
    const id = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';
    const project = join(home, '.claude', 'projects', '-home-u-proj');
    fs.mkdirSync(join(project, id, 'subagents'), { recursive: true });
    fs.writeFileSync(join(project, `${id}.jsonl`), bytes);
    fs.writeFileSync(join(project, id, 'subagents', 'agent-1.jsonl'), '');
    fs.symlinkSync(join(project, `${id}.jsonl`), join(project, 'linked.jsonl'));
    const re = { home, env: {} };
    assert.deepEqual(claudeReader.roots(re), [join(home, '.claude', 'projects')]);
    assert.deepEqual([...claudeReader.list(re)], [{ path: join(project, `${id}.jsonl`), agentSession: id }]);
    assert.equal(claudeReader.locate(re, id, '/home/u/proj'), join(project, `${id}.jsonl`));
    assert.equal(claudeReader.locate(re, id, '/elsewhere'), join(project, `${id}.jsonl`), 'found by name when the cwd folder differs');
    assert.equal(claudeReader.locate(re, 'linked', null), null, 'a symlink is not a transcript');
    assert.equal(claudeReader.locate(re, '../../etc/passwd', null), null);
    assert.equal(claudeReader.locate(re, 'missing', '/home/u/proj'), null);
    const config = join(home, 'cfg');
    const over = { home, env: { CLAUDE_CONFIG_DIR: config } };
    assert.deepEqual(claudeReader.roots(over), [join(config, 'projects')]);
    assert.deepEqual([...claudeReader.list(over)], []);
    assert.equal(claudeReader.locate(over, id, '/home/u/proj'), null);
  });
});
