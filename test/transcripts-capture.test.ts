// The capture engine (src/transcripts/capture.ts) over a minimal JSON-lines reader: exactly
// once whoever captures and however often, the agent's file never written, bounded runs, bad
// lines counted, links out of the agent's store refused. The real agents' formats are tested
// by their own reader tests over what the real programs wrote.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sha256Hex } from '../src/core/hash.ts';
import { type RawItem, itemKey } from '../src/core/transcript.ts';
import { type CaptureRequest, captureOnce, readRecent, sessionCursors } from '../src/transcripts/capture.ts';
import { type JsonlReader, SkipLine } from '../src/transcripts/types.ts';
import { FsStore } from '../src/store/store.ts';
import { readJsonl, tmpDir } from './helpers.ts';

/** `{"id","role","text"}` per line; `{"meta":{"cwd"}}` sets the workspace; `{"bad":1}` is a shape it does not know. */
function testReader(root: string): JsonlReader {
  return {
    agent: 'claude',
    format: 'jsonl',
    roots: () => [root],
    list: () => [],
    locate: () => null,
    parseLine(value, _line, state): RawItem[] {
      const v = value as Record<string, any>;
      if (v.meta) {
        state.meta.cwd = v.meta.cwd;
        return [];
      }
      if (typeof v.id !== 'string') throw new SkipLine('unknown shape');
      const item: RawItem = { item_id: v.id, at: v.at ?? '2026-12-01T10:00:00.000Z', role: v.role ?? 'assistant', kind: v.kind ?? 'message', text: v.text ?? '' };
      if (v.tool) item.tool = v.tool;
      if (v.files) item.files = v.files;
      return [item];
    },
  };
}

interface World {
  home: string;
  agentRoot: string;
  file: string;
  store: FsStore;
  req: (extra?: Partial<CaptureRequest>) => CaptureRequest;
  items: () => any[];
}

function world(): World {
  const root = tmpDir();
  const home = join(root, 'store');
  const agentRoot = join(root, 'agent');
  fs.mkdirSync(agentRoot);
  const file = join(agentRoot, 's1.jsonl');
  const store = new FsStore(home);
  const writer = { surface: 'hook:claude', instanceId: 'hook:claude:s1', actor: 'agent' as const };
  const reader = testReader(agentRoot);
  const req = (extra: Partial<CaptureRequest> = {}): CaptureRequest => ({
    store,
    sessionId: 's1',
    reader,
    path: file,
    agentSession: 's1',
    writer,
    now: new Date('2026-12-01T10:00:00.000Z'),
    readerEnv: { home: root, env: {} },
    create: () => store.ensure('s1', { title: 't', workspace: { cwd: root }, writer, createdBy: 'hook:claude' }),
    ...extra,
  });
  const items = () => readJsonl(join(home, 'sessions', 's1', 'events.jsonl')).filter((e) => e.type === 'transcript.item');
  return { home, agentRoot, file, store, req, items };
}

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

test('each item once: a second capture, a deleted cursor and a deleted item index add nothing', () => {
  const w = world();
  fs.writeFileSync(w.file, line({ id: 'a', role: 'user', text: 'hello' }) + line({ id: 'b', text: 'hi there' }));
  const r1 = captureOnce(w.req());
  assert.equal(r1.appended, 2);
  assert.equal(captureOnce(w.req()).appended, 0);
  const dir = join(w.home, 'sessions', 's1', 'transcripts');
  for (const n of fs.readdirSync(dir)) if (n.endsWith('.cursor.json')) fs.unlinkSync(join(dir, n));
  const r3 = captureOnce(w.req());
  assert.equal(r3.appended, 0);
  assert.equal(r3.duplicates, 2);
  fs.unlinkSync(join(dir, 'items.v2.idx'));
  for (const n of fs.readdirSync(dir)) if (n.endsWith('.cursor.json')) fs.unlinkSync(join(dir, n));
  assert.equal(captureOnce(w.req()).appended, 0);
  const items = w.items();
  assert.deepEqual(
    items.map((e) => [e.payload.item_id, e.payload.role, e.payload.text, e.actor]),
    [
      ['a', 'user', 'hello', 'user'],
      ['b', 'assistant', 'hi there', 'agent'],
    ],
  );
});

test('new lines only on the next run; an unterminated last line waits until it is complete', () => {
  const w = world();
  fs.writeFileSync(w.file, `${line({ id: 'a', text: 'one' })}{"id":"b","te`);
  assert.equal(captureOnce(w.req()).appended, 1);
  fs.appendFileSync(w.file, `xt":"two"}\n${line({ id: 'c', text: 'three' })}`);
  const r = captureOnce(w.req());
  assert.equal(r.appended, 2);
  assert.equal(r.duplicates, 0);
  assert.deepEqual(
    w.items().map((e) => e.payload.text),
    ['one', 'two', 'three'],
  );
});

test("the agent's file is read only: bytes and mtime unchanged", () => {
  const w = world();
  fs.writeFileSync(w.file, line({ id: 'a', text: 'x' }));
  const old = new Date('2026-01-01T00:00:00Z');
  fs.utimesSync(w.file, old, old);
  const before = fs.readFileSync(w.file);
  captureOnce(w.req());
  captureOnce(w.req());
  assert.deepEqual(fs.readFileSync(w.file), before);
  assert.equal(fs.statSync(w.file).mtimeMs, old.getTime());
  assert.deepEqual(fs.readdirSync(w.agentRoot), ['s1.jsonl']);
});

test('a rewritten file is read again: the same items are dropped, a changed one supersedes its first record', () => {
  const w = world();
  fs.writeFileSync(w.file, line({ id: 'a', text: 'first' }) + line({ id: 'b', text: 'second' }));
  captureOnce(w.req());
  const firstSeq = w.items()[0].seq;
  // Same size, other bytes: the head digest differs.
  fs.writeFileSync(w.file, line({ id: 'a', text: 'FIRST' }) + line({ id: 'b', text: 'second' }));
  const r = captureOnce(w.req());
  assert.equal(r.appended, 1);
  assert.equal(r.superseded, 1);
  const last = w.items().at(-1);
  assert.equal(last.payload.text, 'FIRST');
  assert.equal(last.payload.supersedes, firstSeq);
  // Shrunk (truncated): read again from the start, nothing new.
  fs.writeFileSync(w.file, line({ id: 'a', text: 'FIRST' }));
  assert.equal(captureOnce(w.req()).appended, 0);
  assert.equal(w.items().length, 3);
});

test('bounded runs: a budget reads part of a long file, the next runs the rest, each item once', () => {
  const w = world();
  let text = '';
  for (let i = 0; i < 400; i++) text += line({ id: `i${i}`, text: `item ${i} ${'x'.repeat(200)}` });
  fs.writeFileSync(w.file, text);
  const r1 = captureOnce(w.req({ budget: 16 * 1024 }));
  assert.equal(r1.more, true);
  assert.ok(r1.appended > 0 && r1.appended < 400);
  let runs = 1;
  while (captureOnce(w.req({ budget: 16 * 1024 })).more) runs++;
  assert.ok(runs > 2);
  const ids = w.items().map((e) => e.payload.item_id);
  assert.equal(ids.length, 400);
  assert.equal(new Set(ids).size, 400);
});

test('bad lines are skipped and counted, the rest captured; a line over the limit is skipped whole', () => {
  const w = world();
  const huge = `{"id":"h","text":"${'y'.repeat(9 * 1024 * 1024)}"}\n`;
  const bytes = Buffer.concat([
    Buffer.from(line({ id: 'a', text: 'ok' }) + 'not json\n' + line({ bad: 1 })),
    Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
    Buffer.from(`[${'['.repeat(300)}${']'.repeat(300)}]\n`),
    Buffer.from(huge),
    Buffer.from(line({ id: 'z', text: 'after' })),
  ]);
  fs.writeFileSync(w.file, bytes);
  while (captureOnce(w.req()).more) {}
  assert.deepEqual(
    w.items().map((e) => e.payload.item_id),
    ['a', 'z'],
  );
  const [cursor] = sessionCursors(join(w.home, 'sessions', 's1'));
  assert.equal(cursor.skipped['not JSON'], 1);
  assert.equal(cursor.skipped['unknown shape'], 1);
  assert.equal(cursor.skipped['invalid UTF-8'], 1);
  assert.equal(cursor.skipped['nested too deep'], 1);
  assert.equal(cursor.skipped['line too large'], 1);
});

test('a path outside the agent store, or a link out of it, is refused and nothing is written', () => {
  const w = world();
  const outside = join(w.agentRoot, '..', 'elsewhere.jsonl');
  fs.writeFileSync(outside, line({ id: 'a', text: 'secret stuff' }));
  const r = captureOnce(w.req({ path: outside }));
  assert.equal(r.refused?.code, 'TR001');
  fs.symlinkSync(outside, w.file);
  const r2 = captureOnce(w.req());
  assert.equal(r2.refused?.code, 'TR001');
  assert.equal(fs.existsSync(join(w.home, 'sessions')), false);
});

test('secrets are redacted and long texts cut before the write; files made workspace-relative; the recent projection follows', () => {
  const w = world();
  const token = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
  const long = `${'word '.repeat(10_000)}END`;
  fs.writeFileSync(
    w.file,
    line({ meta: { cwd: '/work/proj' } }) +
      line({ id: 'a', role: 'user', text: `use ${token} please` }) +
      line({ id: 'b', text: long }) +
      line({ id: 'c', kind: 'tool_call', text: '', tool: { name: 'Write', call_id: 'c1', input: { file_path: '/work/proj/src/a.ts', content: token } }, files: ['/work/proj/src/a.ts'] }),
  );
  captureOnce(w.req());
  const all = fs.readFileSync(join(w.home, 'sessions', 's1', 'events.jsonl'), 'utf8');
  assert.equal(all.includes(token), false);
  const items = w.items();
  assert.match(items[0].payload.text, /<redacted>/);
  assert.ok(Buffer.byteLength(items[1].payload.text) <= 32 * 1024);
  assert.equal(items[1].payload.truncated.original_bytes, Buffer.byteLength(long));
  assert.ok(items[1].payload.text.endsWith('END'));
  assert.match(items[1].payload.text, /baton cut \d+ bytes/);
  assert.deepEqual(items[2].payload.files, ['src/a.ts']);
  assert.equal(items[2].payload.tool.input.content, '<redacted>');
  const recent = readRecent(join(w.home, 'sessions', 's1'));
  assert.equal(recent?.items, 3);
  assert.equal(recent?.users[0].seq, items[0].seq);
  assert.deepEqual(
    recent?.files.map((f) => f.path),
    ['src/a.ts'],
  );
});

test('a session captured before the content digest (items.idx of SHA-256 digests): nothing captured again, the old file removed', () => {
  const w = world();
  fs.writeFileSync(w.file, line({ id: 'a', text: 'one' }) + line({ id: 'b', text: 'two', tool: { name: 'Read', call_id: 'c1', input: { path: 'x' } } }));
  assert.equal(captureOnce(w.req()).appended, 2);
  const dir = join(w.home, 'sessions', 's1', 'transcripts');
  // What the version before docs/adr/0088 left: its index, with its digests, and no new one.
  const old = w
    .items()
    .map((e) => {
      const p = e.payload;
      const digest = sha256Hex(JSON.stringify([p.role, p.kind, p.text, p.truncated ?? null, p.tool ?? null, p.files ?? null, p.model ?? null, p.usage ?? null])).slice(0, 32);
      return `${itemKey(p)} ${digest} ${e.seq}\n`;
    })
    .join('');
  const logBytes = fs.statSync(join(w.home, 'sessions', 's1', 'events.jsonl')).size;
  fs.writeFileSync(join(dir, 'items.idx'), `${old}@ ${logBytes}\n`);
  fs.unlinkSync(join(dir, 'items.v2.idx'));
  for (const n of fs.readdirSync(dir)) if (n.endsWith('.cursor.json')) fs.unlinkSync(join(dir, n));
  const again = captureOnce(w.req());
  assert.deepEqual([again.appended, again.duplicates, again.superseded], [0, 2, 0]);
  assert.equal(w.items().length, 2);
  assert.ok(!fs.existsSync(join(dir, 'items.idx')));
  assert.equal(fs.readFileSync(join(dir, 'items.v2.idx'), 'utf8').split('\n').filter((l) => /^[0-9a-f]{32} [0-9a-f]{32} \d+$/.test(l)).length, 2);
});

test('items.v2.idx: lines it lost are written back from the log once, a torn last line does not join the next one', () => {
  const w = world();
  fs.writeFileSync(w.file, line({ id: 'a', text: 'one' }) + line({ id: 'b', text: 'two' }));
  assert.equal(captureOnce(w.req()).appended, 2);
  const dir = join(w.home, 'sessions', 's1', 'transcripts');
  const idxFile = join(dir, 'items.v2.idx');
  const full = fs.readFileSync(idxFile, 'utf8');
  // A crash lost the index's lines (they are not fsync'd) and left half a line.
  fs.writeFileSync(idxFile, full.slice(0, 20));
  fs.appendFileSync(w.file, line({ id: 'c', text: 'three' }));
  assert.equal(captureOnce(w.req()).appended, 1);
  const lines = fs.readFileSync(idxFile, 'utf8').split('\n');
  // The items of the log are all in the index again, each line whole, with the log's size last.
  const keys = lines.filter((l) => /^[0-9a-f]{32} [0-9a-f]{32} \d+$/.test(l)).map((l) => l.split(' ')[0]);
  assert.equal(new Set(keys).size, 3);
  assert.equal(lines.at(-2), `@ ${fs.statSync(join(w.home, 'sessions', 's1', 'events.jsonl')).size}`);
  // Read again from the start (cursor gone): nothing is appended twice, and the index is rebuilt
  // from the log (a re-read trusts no line of it): the three items and the log's size, nothing else.
  for (const n of fs.readdirSync(dir)) if (n.endsWith('.cursor.json')) fs.unlinkSync(join(dir, n));
  const r = captureOnce(w.req());
  assert.equal(r.appended, 0);
  assert.equal(r.duplicates, 3);
  const rebuilt = fs.readFileSync(idxFile, 'utf8').split('\n');
  assert.deepEqual(
    rebuilt.map((l) => (l.startsWith('@ ') ? '@' : /^[0-9a-f]{32} [0-9a-f]{32} \d+$/.test(l) ? 'item' : l)),
    ['item', 'item', 'item', '@', ''],
  );
  assert.equal(rebuilt.at(-2), `@ ${fs.statSync(join(w.home, 'sessions', 's1', 'events.jsonl')).size}`);
  assert.deepEqual(
    w.items().map((e) => e.payload.item_id),
    ['a', 'b', 'c'],
  );
});

test('items.v2.idx: the last record of a key is its current one (a changed item supersedes the newest)', () => {
  const w = world();
  fs.writeFileSync(w.file, line({ id: 'a', text: 'v1' }));
  captureOnce(w.req());
  fs.writeFileSync(w.file, line({ id: 'a', text: 'v2' }) + line({ id: 'x', text: 'pad the head so it differs' }));
  captureOnce(w.req());
  fs.writeFileSync(w.file, line({ id: 'a', text: 'v3' }));
  captureOnce(w.req());
  const items = w.items();
  assert.deepEqual(
    items.map((e) => [e.payload.item_id, e.payload.text]),
    [
      ['a', 'v1'],
      ['a', 'v2'],
      ['x', 'pad the head so it differs'],
      ['a', 'v3'],
    ],
  );
  assert.equal(items[1].payload.supersedes, items[0].seq);
  assert.equal(items[3].payload.supersedes, items[1].seq);
});

test('recent.json is rewritten in place and checks itself: a mixed one is no projection (rebuilt from the log); one without a check, and a cursor checked with SHA-256, as earlier versions wrote them, still read', () => {
  const w = world();
  fs.writeFileSync(w.file, line({ id: 'a', role: 'user', text: 'one' }) + line({ id: 'b', text: 'two' }));
  captureOnce(w.req());
  const sdir = join(w.home, 'sessions', 's1');
  const rfile = join(sdir, 'transcripts', 'recent.json');
  const ino = fs.statSync(rfile).ino;
  const good = fs.readFileSync(rfile, 'utf8');
  assert.match(good, /,"check":"[0-9a-f]{16}"\}\n$/);
  assert.equal(readRecent(sdir)?.items, 2);
  // Old and new bytes mixed (it parses; the check says no): no projection, and the next capture rebuilds it from the log.
  fs.writeFileSync(rfile, good.replace('"items":2', '"items":9'));
  assert.equal(readRecent(sdir), null);
  fs.appendFileSync(w.file, line({ id: 'c', text: 'three' }));
  assert.equal(captureOnce(w.req()).appended, 1);
  assert.equal(readRecent(sdir)?.items, 3);
  assert.deepEqual(
    readRecent(sdir)?.assistants.map((l) => l.text),
    ['two', 'three'],
  );
  assert.equal(fs.statSync(rfile).ino, ino, 'rewritten in place, not replaced');
  // What earlier versions wrote: recent.json without a check, a cursor whose check is SHA-256's.
  const { check: _c, ...plain } = JSON.parse(fs.readFileSync(rfile, 'utf8'));
  fs.writeFileSync(rfile, `${JSON.stringify(plain)}\n`);
  assert.equal(readRecent(sdir)?.items, 3);
  const tdir = join(sdir, 'transcripts');
  const cfile = join(tdir, fs.readdirSync(tdir).find((n) => n.endsWith('.cursor.json')) as string);
  const { check: _k, ...cursor } = JSON.parse(fs.readFileSync(cfile, 'utf8'));
  const body = JSON.stringify(cursor);
  fs.writeFileSync(cfile, `${body.slice(0, -1)},"check":"${sha256Hex(body).slice(0, 16)}"}\n`);
  assert.equal(sessionCursors(sdir)[0]?.offset, cursor.offset);
  fs.writeFileSync(cfile, `${body.slice(0, -1)},"check":"${sha256Hex(`${body} `).slice(0, 16)}"}\n`);
  assert.equal(sessionCursors(sdir).length, 0);
});

test('the cursor rewritten in place: a mixed or torn one fails its check and the file is read again, each item once', () => {
  const w = world();
  fs.writeFileSync(w.file, line({ id: 'a', text: 'one' }) + line({ id: 'b', text: 'two' }));
  captureOnce(w.req());
  const dir = join(w.home, 'sessions', 's1', 'transcripts');
  const name = fs.readdirSync(dir).find((n) => n.endsWith('.cursor.json')) as string;
  const cfile = join(dir, name);
  const good = fs.readFileSync(cfile, 'utf8');
  assert.match(good, /,"check":"[0-9a-f]{16}"\}\n$/);
  assert.equal(sessionCursors(join(w.home, 'sessions', 's1')).length, 1);
  // Old and new bytes mixed: the offset says more than was read (it parses; the check says no).
  fs.writeFileSync(cfile, good.replace(/"offset":(\d+)/, (_m, n) => `"offset":${Number(n) + 7}`));
  assert.equal(sessionCursors(join(w.home, 'sessions', 's1')).length, 0);
  fs.appendFileSync(w.file, line({ id: 'c', text: 'three' }));
  const r = captureOnce(w.req());
  assert.equal(r.appended, 1);
  assert.equal(r.duplicates, 2);
  // Torn (a crash mid-write) and padded: read again from the start too.
  fs.writeFileSync(cfile, `${good.slice(0, 40)}${' '.repeat(200)}`);
  assert.equal(captureOnce(w.req()).appended, 0);
  assert.deepEqual(
    w.items().map((e) => e.payload.item_id),
    ['a', 'b', 'c'],
  );
  // A shorter cursor written over a longer one keeps the file's length, padded with spaces, and reads back.
  assert.equal(sessionCursors(join(w.home, 'sessions', 's1'))[0].offset, fs.statSync(w.file).size);
});
