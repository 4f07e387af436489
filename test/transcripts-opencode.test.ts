// opencode's and Kilo's transcript reader over what opencode 1.18.33 and Kilo 7.7.7 wrote offline
// (test/e2e/record-transcripts-opencode.ts): the messages the plugin API returns at session.idle
// (what baton's plugin sends in transcript_items) and the same session's rows out of SQLite
// (history import through an injected handle) give the exact same items; ids are stable, the
// resumed run adds only new ones, and hostile entries are skipped with a reason, never thrown.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { boundItem } from '../src/core/transcript.ts';
import { renderPlugin } from '../src/providers/plugin-file.ts';
import { opencode } from '../src/providers/opencode.ts';
import { kiloReader } from '../src/transcripts/kilo.ts';
import { opencodeReader } from '../src/transcripts/opencode.ts';
import { newParseState, parseEntries } from '../src/transcripts/parse.ts';
import type { Db, PayloadReader } from '../src/transcripts/types.ts';
import { tmpDir } from './helpers.ts';

const FIX = join(import.meta.dirname, 'fixtures', 'transcripts');
const SECRET = `ghp_${'A1b2C3d4E5'.repeat(3)}x9Y8z7`;
const load = (agent: string, name: string) => JSON.parse(fs.readFileSync(join(FIX, agent, name), 'utf8'));

/** A stand-in for a better-sqlite3 handle over the recorded rows (the three queries the reader makes). */
function fakeDb(dump: any): Db & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    prepare(sql: string) {
      queries.push(sql);
      return {
        all: (...params: unknown[]) => {
          if (/FROM session/.test(sql)) return dump.session.filter((r: any) => r.parent_id === null).map((r: any) => ({ ...r }));
          const rows = /FROM message/.test(sql) ? dump.message : dump.part;
          return rows.filter((r: any) => r.session_id === params[0]).map((r: any) => ({ ...r, data: JSON.stringify(r.data) }));
        },
      };
    },
  };
}

const shape = (raw: any) => {
  const o: any = { role: raw.role, kind: raw.kind, text: raw.text };
  for (const k of ['tool', 'files', 'readPath', 'model', 'usage']) if (raw[k] !== undefined) o[k] = raw[k];
  return o;
};
const usage = { input: 12, output: 6, cache_read: 0, cache_write: 0 };

for (const [agent, version, reader] of [
  ['opencode', '1.18.33', opencodeReader],
  ['kilo', '7.7.7', kiloReader],
] as [string, string, PayloadReader][]) {
  describe(`${agent} ${version} transcript reader`, () => {
    const messages = load(agent, `${agent}-${version}-messages.json`);
    const first = load(agent, `${agent}-${version}-messages.first.json`);
    const dump = load(agent, `${agent}-${version}-db.json`);
    const sid = dump.session[0].id;

    test('the messages at session.idle become exactly the session’s items: prompts, answers with model and usage, the bash and write calls with their results', () => {
      const state = newParseState();
      const r = parseEntries(reader, messages, state);
      assert.deepEqual(r.skips, []);
      const items = r.items.map((i) => i.raw);
      const calls = items.filter((i) => i.kind === 'tool_call').map((i) => i.tool!.call_id);
      assert.equal(calls.length, 2);
      assert.deepEqual(items.map(shape), [
        { role: 'user', kind: 'message', text: '"Write hello into notes.txt and a poem into poem.txt"' },
        { role: 'assistant', kind: 'message', text: 'I will write the notes first.', model: 'stand-in', usage },
        { role: 'assistant', kind: 'tool_call', text: agent === 'kilo' ? 'publish the task pointer' : "printf 'hello\\n' > notes.txt", tool: { name: 'bash', call_id: calls[0], input: { command: "printf 'hello\\n' > notes.txt", description: 'publish the task pointer' } }, model: 'stand-in' },
        { role: 'tool', kind: 'tool_result', text: '(no output)', tool: { name: 'bash', call_id: calls[0] } },
        { role: 'assistant', kind: 'message', text: 'Now the poem.', model: 'stand-in', usage },
        { role: 'assistant', kind: 'tool_call', text: 'tmp/rec/project/poem.txt', tool: { name: 'write', call_id: calls[1], input: { filePath: '/tmp/rec/project/poem.txt', content: 'roses are red\n' } }, files: ['/tmp/rec/project/poem.txt'], model: 'stand-in' },
        { role: 'tool', kind: 'tool_result', text: items[6].text, tool: { name: 'write', call_id: calls[1] } },
        { role: 'assistant', kind: 'message', text: 'Done: notes.txt and poem.txt are written.', model: 'stand-in', usage },
        { role: 'user', kind: 'message', text: '"Print the deploy token"' },
        { role: 'assistant', kind: 'message', text: `Here is the token you asked for: ${SECRET}`, model: 'stand-in', usage },
      ]);
      assert.match(items[6].text, /^Wrote file successfully/);
      assert.deepEqual(state.meta, { agentSession: sid, startedAt: state.meta.startedAt, firstPrompt: '"Write hello into notes.txt and a poem into poem.txt"', model: 'stand-in', cwd: '/tmp/rec/project' });
      for (const i of items) assert.equal(typeof i.at, 'number');
      const stored = boundItem(agent as 'opencode', sid, items.at(-1)!, { workspace: '/tmp/rec/project', now: '2026-01-01T00:00:00.000Z' });
      assert.ok(!stored.text.includes(SECRET) && stored.text.includes('<redacted>'));
      const write = boundItem(agent as 'opencode', sid, items[5], { workspace: '/tmp/rec/project', now: '2026-01-01T00:00:00.000Z' });
      assert.deepEqual(write.files, ['poem.txt']);
    });

    test('history import: the database’s rows through an injected handle give the same entries, so the same items and ids', () => {
      const db = fakeDb(dump);
      assert.deepEqual(reader.databaseSessions(db), [{ agentSession: sid, cwd: '/tmp/rec/project', title: dump.session[0].title, startedAt: new Date(dump.session[0].time_created).toISOString(), updatedAt: new Date(dump.session[0].time_updated).toISOString() }]);
      const fromDb = parseEntries(reader, reader.databaseEntries(db, sid), newParseState());
      const fromPayload = parseEntries(reader, messages, newParseState());
      assert.deepEqual(fromDb.skips, []);
      assert.deepEqual(
        fromDb.items.map((i) => i.raw),
        fromPayload.items.map((i) => i.raw),
      );
      for (const q of db.queries) assert.doesNotMatch(q, /\b(INSERT|UPDATE|DELETE|PRAGMA)\b/i, 'read-only');
    });

    test('ids are opencode’s own (message, part, part.result), unique and the same on every parse; the resumed run adds only new ones', () => {
      const ids = (m: unknown) => parseEntries(reader, m, newParseState()).items.map((i) => i.raw.item_id);
      const all = ids(messages);
      assert.deepEqual(all, ids(messages));
      assert.equal(new Set(all).size, all.length);
      for (const id of all) assert.match(id, /^(msg|prt)_[A-Za-z0-9]+(\.result)?$/);
      const before = ids(first);
      assert.deepEqual(all.slice(0, before.length), before);
      assert.equal(all.length - before.length, 2, 'the resumed turn: its prompt and its answer');
    });

    test('hostile entries never throw: not an object, no parts, an unknown role, deep nesting and a huge text are each handled, the rest kept', () => {
      let deep: any = {};
      for (let i = 0; i < 10_000; i++) deep = { d: deep };
      const huge = { info: { id: 'msg_huge', role: 'user', time: { created: 1 } }, parts: [{ id: 'prt_h', type: 'text', text: 'x'.repeat(9 * 1024 * 1024) }] };
      const r = parseEntries(reader, ['nope', { info: { id: 'm' } }, { info: { id: 'm2', role: 'alien' }, parts: [] }, { info: { role: 'user' }, parts: [] }, { info: { id: 'msg_deep', role: 'assistant' }, parts: [{ id: 'prt_deep', type: 'tool', tool: 'bash', state: { status: 'running', input: deep } }] }, { info: { id: 'msg_d', role: 'assistant' }, parts: [{ id: 'prt_d', type: 'tool', tool: 'bash', state: { status: 'running', input: { command: 'ls' } } }, { type: 'text', text: 'no id' }, { id: 'prt_u', type: 'hologram' }] }, huge, messages[0]], newParseState());
      assert.deepEqual(
        r.skips.map((s) => [s.line, s.reason.replace(/ ".*/, '')]),
        [
          [1, 'entry is not a message with its parts'],
          [2, 'entry is not a message with its parts'],
          [3, 'message role'],
          [4, 'message without an id'],
          [5, 'nested too deep'],
        ],
      );
      assert.deepEqual(
        r.items.map((i) => [i.line, i.raw.item_id, i.raw.kind]),
        [
          [6, 'prt_d', 'tool_call'],
          [7, 'msg_huge', 'message'],
          [8, messages[0].info.id, 'message'],
        ],
      );
      // Bounds are boundItem's: the 9 MiB prompt is cut before any write.
      const big = boundItem('opencode', 's', r.items[1].raw, { workspace: null, now: '2026-01-01T00:00:00.000Z' });
      assert.ok(Buffer.byteLength(big.text) <= 32 * 1024 && big.truncated);
      assert.deepEqual(parseEntries(reader, { not: 'an array' }, newParseState()).skips, [{ line: 0, reason: 'transcript items are not an array' }]);
      assert.deepEqual(parseEntries(reader, undefined, newParseState()).items, []);
    });

    test('a read names its file and its result carries readPath; reasoning is kept, a compaction summary is system/compaction, synthetic parts are not the user’s', () => {
      const r = parseEntries(
        reader,
        [
          { info: { id: 'msg_1', role: 'user', time: { created: 1 } }, parts: [{ id: 'prt_1', type: 'text', text: 'read it' }, { id: 'prt_2', type: 'text', text: 'TASK_POINTER_V2 context', synthetic: true }] },
          { info: { id: 'msg_2', role: 'assistant', modelID: 'm', tokens: { input: 1, output: 2, reasoning: 0, cache: { read: 3, write: 4 } }, time: { created: 2 } }, parts: [{ id: 'prt_3', type: 'reasoning', text: 'Think about it.' }, { id: 'prt_4', type: 'tool', tool: 'read', callID: 'c1', state: { status: 'completed', input: { filePath: '/p/.env' }, output: 'KEY=1', title: '.env', time: { start: 3, end: 4 } } }] },
          { info: { id: 'msg_3', role: 'assistant', summary: true, time: { created: 5 } }, parts: [{ id: 'prt_5', type: 'text', text: 'Summary of the work.' }] },
          { info: { id: 'msg_4', role: 'user', time: { created: 6 } }, parts: [{ id: 'prt_6', type: 'text', text: 'only context', synthetic: true }] },
        ],
        newParseState(),
      );
      assert.deepEqual(r.skips, []);
      assert.deepEqual(
        r.items.map((i) => [i.raw.item_id, i.raw.role, i.raw.kind, i.raw.text, i.raw.files ?? null, i.raw.readPath ?? null]),
        [
          ['msg_1', 'user', 'message', 'read it', null, null],
          ['prt_3', 'assistant', 'reasoning', 'Think about it.', null, null],
          ['prt_4', 'assistant', 'tool_call', '.env', ['/p/.env'], null],
          ['prt_4.result', 'tool', 'tool_result', 'KEY=1', null, '/p/.env'],
          ['prt_5', 'system', 'compaction', 'Summary of the work.', null, null],
        ],
      );
      assert.deepEqual([r.items[1].raw.model, r.items[1].raw.usage], ['m', { input: 1, output: 2, cache_read: 3, cache_write: 4 }]);
      const stored = boundItem('opencode', 's', r.items[3].raw, { workspace: '/p', now: '2026-01-01T00:00:00.000Z' });
      assert.ok(!stored.text.includes('KEY=1'));
    });

    test('roots, list and locate: the data folder (XDG_DATA_HOME or ~/.local/share), its database files, or the one the DB variable names', () => {
      const home = tmpDir(`baton-${agent}-reader-`);
      try {
        const dir = join(home, '.local', 'share', agent);
        assert.deepEqual(reader.roots({ home, env: {} }), [dir]);
        assert.deepEqual(reader.roots({ home, env: { XDG_DATA_HOME: '/xdg' } }), [join('/xdg', agent)]);
        assert.deepEqual([...reader.list({ home, env: {} })], []);
        assert.equal(reader.locate({ home, env: {} }, sid, null), null);
        fs.mkdirSync(dir, { recursive: true });
        for (const f of [`${agent}.db`, `${agent}.db-wal`, `${agent}.db-shm`, 'notes.txt']) fs.writeFileSync(join(dir, f), '');
        assert.deepEqual([...reader.list({ home, env: {} })], [{ path: join(dir, `${agent}.db`) }]);
        assert.equal(reader.locate({ home, env: {} }, sid, null), join(dir, `${agent}.db`));
        const v = agent === 'opencode' ? 'OPENCODE_DB' : 'KILO_DB';
        assert.deepEqual([...reader.list({ home, env: { [v]: 'other.db' } })], [{ path: join(dir, 'other.db') }]);
        assert.deepEqual([...reader.list({ home, env: { [v]: '/abs/x.db' } })], [{ path: '/abs/x.db' }]);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    });
  });
}

describe('baton’s plugin at session.idle', () => {
  const plugin = (command: string) => renderPlugin(opencode, [{ event: 'session.start', command: 'true' }, { event: 'session.idle', command }]);

  async function idle(command: string, client: unknown): Promise<any> {
    const dir = tmpDir('baton-plugin-idle-');
    try {
      const out = join(dir, 'payload.json');
      const file = join(dir, 'baton.mjs');
      fs.writeFileSync(file, plugin(command.replace('OUT', out)));
      const mod = await import(file);
      const hooks = await mod.BatonPlugin({ client, directory: dir });
      await hooks.event({ event: { type: 'session.created', properties: { info: { id: 'ses_1' } } } });
      await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_1' } } });
      return fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : null;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test('sends the messages since the process loaded in transcript_items (older ones not), strings over 64 KiB cut; without the transcript aspect or a client, none', async () => {
    const now = Date.now();
    const messages = [
      { info: { id: 'msg_old', role: 'user', time: { created: now - 3_600_000 } }, parts: [] },
      { info: { id: 'msg_new', role: 'user', time: { created: now + 1000 } }, parts: [{ id: 'prt_1', type: 'text', text: 'y'.repeat(100_000) }] },
    ];
    const client = { session: { messages: async ({ path }: any) => ({ data: path.id === 'ses_1' ? messages : [] }) } };
    const sent = await idle("cat > 'OUT'", client);
    assert.equal(sent.hook_event_name, 'session.idle');
    assert.equal(sent.reason, 'idle');
    assert.deepEqual(
      sent.transcript_items.map((m: any) => m.info.id),
      ['msg_new'],
    );
    assert.equal(sent.transcript_omitted, 0);
    const text = sent.transcript_items[0].parts[0].text as string;
    assert.ok(text.length < 70_000 && text.includes('cut by baton'));
    assert.equal((await idle("cat > 'OUT' # --aspects session,pointer", client)).transcript_items, undefined);
    assert.equal((await idle("cat > 'OUT'", undefined)).transcript_items, undefined);
    const failing = { session: { messages: async () => Promise.reject(new Error('down')) } };
    const r = await idle("cat > 'OUT'", failing);
    assert.equal(r.reason, 'idle', 'a failing client still sends the idle');
    assert.equal(r.transcript_items, undefined);
  });
});

describe('baton’s plugin at a resume (the catch-up at the next start)', () => {
  const plugin = (command: string, idle: string) => renderPlugin(opencode, [{ event: 'session.start', command }, { event: 'chat.message', command: 'true' }, { event: 'session.idle', command: idle }]);

  /** A process that did not start ses_1 gets a prompt for it (`run --session`): what the start hook is sent. */
  async function resume(command: string, client: unknown, first: 'chat.message' | 'session.created' = 'chat.message', idle = 'true', turns = 1): Promise<any> {
    const dir = tmpDir('baton-plugin-resume-');
    try {
      const out = join(dir, 'payload.json');
      const file = join(dir, 'baton.mjs');
      fs.writeFileSync(file, plugin(command.replace('OUT', out), idle));
      const mod = await import(file);
      const hooks = await mod.BatonPlugin({ client, directory: dir });
      if (first === 'session.created') await hooks.event({ event: { type: 'session.created', properties: { info: { id: 'ses_1' } } } });
      for (let turn = 0; turn < turns; turn++) {
        if (turn) {
          await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_1' } } });
          fs.rmSync(out);
        }
        await hooks['chat.message']({ sessionID: 'ses_1' }, { message: {}, parts: [{ id: 'prt_p', type: 'text', text: 'go on' }] });
      }
      return fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : null;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test('sends the newest 64 messages from before the process loaded (a later one not, 1 MiB at most); a new session, a failing client, no transcript aspect or a later turn of the same process sends none', async () => {
    const now = Date.now();
    const old = Array.from({ length: 70 }, (_, i) => ({ info: { id: `msg_${String(i).padStart(2, '0')}`, role: 'user', time: { created: now - 100_000 + i } }, parts: [] }));
    const later = { info: { id: 'msg_later', role: 'user', time: { created: now + 60_000 } }, parts: [] };
    const client = { session: { messages: async ({ path }: any) => ({ data: path.id === 'ses_1' ? [...old, later] : [] }) } };
    const sent = await resume("cat > 'OUT'", client);
    assert.equal(sent.hook_event_name, 'session.start');
    assert.equal(sent.source, 'resume');
    assert.deepEqual(
      sent.transcript_items.map((m: any) => m.info.id),
      old.slice(6).map((m) => m.info.id),
    );
    const big = Array.from({ length: 30 }, (_, i) => ({ info: { id: `msg_big${i}`, role: 'user', time: { created: now - 100_000 + i } }, parts: [{ id: `prt_${i}`, type: 'text', text: 'z'.repeat(60_000) }] }));
    const capped = await resume("cat > 'OUT'", { session: { messages: async () => ({ data: big }) } });
    assert.ok(capped.transcript_items.length < 30 && capped.transcript_items.length >= 16, `${capped.transcript_items.length} of 30 messages of 60 KB`);
    assert.equal(capped.transcript_items.at(-1).info.id, 'msg_big29', 'the newest kept');
    assert.equal((await resume("cat > 'OUT'", client, 'session.created')).transcript_items, undefined, 'a session this process created has nothing before it');
    assert.equal((await resume("cat > 'OUT'", { session: { messages: async () => Promise.reject(new Error('down')) } })).source, 'resume', 'a failing client still starts the session');
    assert.equal((await resume("cat > 'OUT'", client, 'chat.message', 'true --aspects session,pointer')).transcript_items, undefined, 'without the transcript aspect');
    const second = await resume("cat > 'OUT'", client, 'chat.message', 'true', 2);
    assert.equal(second.source, 'resume', 'the next turn in the same process starts again (a TUI)');
    assert.equal(second.transcript_items, undefined, 'but is not sent the older messages again');
  });
});
