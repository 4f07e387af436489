// The app server's transcript as turns (docs/server.md, docs/transcripts.md): thread/read with
// includeTurns and the paged thread/turns/list, over items the real turn-end hook captured from
// a real Claude Code transcript, through the typed client over `baton serve --stdio`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, agentWorld, baton } from './helpers.ts';
import { stdioClient } from './server-helpers.ts';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl');
const SESSION = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';

/** A store whose session the real turn-end hook captured from Claude Code's real transcript; `stop()` captures again. */
function captured() {
  const w = agentWorld();
  const dir = join(w.home, '.claude', 'projects', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${SESSION}.jsonl`);
  fs.copyFileSync(FIXTURE, transcript);
  const stop = () => assert.equal(baton(['hook', 'claude'], { env: w.env, input: JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: '/home/u/proj', hook_event_name: 'Stop' }) }).code, 0);
  stop();
  return { w, transcript, stop };
}

test('thread/read gives turns that hold their items, newest first; thread/turns/list pages back', async () => {
  const { w } = captured();
  const c = await stdioClient(w.store);
  try {
    const r = await c.threadRead({ threadId: SESSION, includeTurns: { limit: 50 } });
    const turns = r.turns!.turns;
    assert.ok(turns.length >= 2, `turns: ${turns.length}`);
    for (const t of turns) {
      assert.equal(t.items[0].role, 'user');
      assert.equal(t.id, t.items[0].seq);
    }
    // Newest first: ids go down.
    for (let i = 1; i < turns.length; i++) assert.ok(turns[i].id < turns[i - 1].id);
    const first = turns[turns.length - 1];
    const kinds = first.items.map((i) => `${i.role}/${i.kind}`);
    assert.ok(kinds.includes('assistant/message') && kinds.includes('assistant/tool_call') && kinds.includes('tool/tool_result'), kinds.join(' '));
    assert.equal(r.turns!.totalItems, turns.reduce((n, t) => n + t.items.length, 0));
    // One turn a page, back to the first.
    const seen: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await c.threadTurnsList({ threadId: SESSION, limit: 1, ...(before !== undefined ? { before } : {}) });
      assert.equal(page.data.length, 1);
      seen.push(page.data[0].id);
      if (page.nextBefore === null) break;
      before = page.nextBefore;
    }
    assert.deepEqual(seen, turns.map((t) => t.id));
    await assert.rejects(c.threadTurnsList({ threadId: 'no-such-thread' }), (e: any) => /WS001/.test(JSON.stringify(e.data ?? e.message)));
    // thread/continue is `baton continue --print`: an agent not on the server's PATH is CN001 naming its install command.
    await assert.rejects(c.threadContinue({ threadId: SESSION, in: 'gemini', workspace: w.project }), (e: any) => /CN001/.test(JSON.stringify(e.data ?? e.message)) && /npm install -g @google\/gemini-cli/.test(JSON.stringify(e.data ?? e.message)));
    await assert.rejects(c.threadContinue({ threadId: SESSION, in: 'gemini', workspace: 'relative/dir' }), (e: any) => /USAGE/.test(JSON.stringify(e.data ?? e.message)));
  } finally {
    c.close();
  }
});

test('a turn whose first message the agent changed since keeps its place: paged one turn at a time, every turn and item comes once', async () => {
  const { w, transcript, stop } = captured();
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n');
  lines[2] = JSON.stringify({ ...JSON.parse(lines[2]), message: { role: 'user', content: 'Write hello into notes.txt (edited)' } });
  fs.writeFileSync(transcript, lines.join('\n'));
  stop();
  const c = await stdioClient(w.store);
  try {
    const all = (await c.threadTurnsList({ threadId: SESSION, limit: 50 })).data;
    for (let i = 1; i < all.length; i++) assert.ok(all[i].id < all[i - 1].id, `ids go down: ${all.map((t) => t.id)}`);
    const oldest = all[all.length - 1];
    assert.equal(oldest.items[0].text, 'Write hello into notes.txt (edited)');
    assert.ok(oldest.items[0].seq > oldest.id, 'the changed record is newer than the place it keeps');
    const seen: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await c.threadTurnsList({ threadId: SESSION, limit: 1, ...(before !== undefined ? { before } : {}) });
      seen.push(...page.data.map((t) => t.id));
      if (page.nextBefore === null) break;
      before = page.nextBefore;
    }
    assert.deepEqual(seen, all.map((t) => t.id));
  } finally {
    c.close();
  }
});

test('a turn alone over the page bound keeps its request and its newest items; those between are counted', async () => {
  const { w } = captured();
  const c = await stdioClient(w.store);
  try {
    const all = (await c.threadTurnsList({ threadId: SESSION, limit: 50 })).data;
    const first = all[all.length - 1];
    assert.ok(first.items.length >= 5);
    const cut = (await c.threadTurnsList({ threadId: SESSION, limit: 1, before: all[all.length - 2].id, maxBytes: 1024 })).data[0];
    assert.equal(cut.id, first.id);
    assert.ok((cut.itemsOmitted ?? 0) > 0, 'items were left out');
    assert.deepEqual(cut.items[0], first.items[0], 'the request that began the turn is kept');
    assert.equal(cut.items[0].role, 'user');
    assert.deepEqual(cut.items.slice(1), first.items.slice(first.items.length - (cut.items.length - 1)), 'then its newest items');
    assert.equal(cut.items.length + (cut.itemsOmitted ?? 0), first.items.length);
  } finally {
    c.close();
  }
});
