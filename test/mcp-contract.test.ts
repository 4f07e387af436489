// The MCP server's contract (mcp.md), through the SDK's own client, over both transports:
// stdio (the real `bin/baton.cjs mcp`) and Streamable HTTP (POST /mcp on the real `baton
// serve`, with its token). Every tool is called, and every refusal comes back as an isError
// result with its code — the sessions' files byte-identical afterwards — while the server
// goes on answering.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { baton, readJsonl, tmpDir, treeHash } from './helpers.ts';
import { call, httpMcp, ok, refused, stdioMcp } from './mcp-helpers.ts';
import { type RunningServer, startServer } from './server-helpers.ts';

const TOOLS = ['context_append', 'pointer_get', 'pointer_publish', 'ref_capture', 'ref_list', 'search', 'session_list', 'session_log'];
const TASK = '6f1c2b9e-3a4d-4e5f-8a6b-7c8d9e0f1a2b';
const SECRET = 'AKIAIOSFODNN7EXAMPLE';
const CLI = { BATON_INSTANCE: 'cli-tester' };

/** A store with: alpha (free), held (leased by the CLI), frozen (archived), cli-only (mcp not allowed). */
function seed(): string {
  const home = tmpDir('baton-mcp-');
  const run = (args: string[]) => {
    const r = baton(args, { home, env: CLI });
    assert.equal(r.code, 0, r.stderr);
  };
  run(['session', 'new', 'Alpha work', '--id', 'alpha']);
  run(['session', 'release', 'alpha']);
  run(['session', 'new', 'Held elsewhere', '--id', 'held']);
  run(['session', 'new', 'Frozen', '--id', 'frozen']);
  run(['session', 'release', 'frozen']);
  run(['session', 'archive', 'frozen']);
  run(['session', 'new', 'CLI only', '--id', 'cli-only', '--allow', 'cli']);
  run(['session', 'release', 'cli-only']);
  return home;
}

/** The sessions folder, less the store mutex's parked token (a long-lived process rewrites it at each hold, refusals included) and the verify stamp. */
const sessionsHash = (home: string): string => treeHash(join(home, 'sessions'), (n) => n === '.verified' || n.startsWith('.mutex'));

/** Runs `fn` and checks it left every session's files as they were. */
async function unchanged(home: string, fn: () => Promise<unknown>): Promise<void> {
  const before = sessionsHash(home);
  await fn();
  assert.equal(sessionsHash(home), before, 'a refusal changed the store');
}

function contract(transport: 'stdio' | 'http', connect: (home: string) => Promise<{ client: Client; close: () => Promise<void> }>): void {
  describe(`over ${transport}`, () => {
    let home: string;
    let c: Client;
    let close: () => Promise<void>;
    before(async () => {
      home = seed();
      ({ client: c, close } = await connect(home));
    });
    after(async () => {
      await close();
    });

    test('tools/list has the eight tools, each with an object schema and a description naming its error codes', async () => {
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object', t.name);
        assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, t.name);
        assert.match(t.description ?? '', /Errors \(isError/, t.name);
      }
      const publish = tools.find((t) => t.name === 'pointer_publish');
      assert.match(publish?.description ?? '', /STALE_REVISION — .*pointer_get.*generation and revision/);
      const { resourceTemplates } = await c.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate).sort(), ['baton://session/{id}/context', 'baton://session/{id}/pointer']);
    });

    test('pointer_get, pointer_publish: the pointer changes on disk; a stale publish is STALE_* and writes nothing', async () => {
      const first = await ok(c, 'pointer_get', { session: 'alpha' });
      assert.equal(first.generation, 'ABSENT');
      assert.equal(first.revision, 0);
      assert.match(first.block, /^TASK_POINTER_V2_BOOTSTRAP\n/);
      const receipt = await ok(c, 'pointer_publish', { session: 'alpha', expected_generation: 'ABSENT', expected_revision: 0, task_id: TASK, pointer_text: 'Goal: ship\nNext: test' });
      assert.equal(receipt.revision, 1);
      const state = JSON.parse(fs.readFileSync(join(home, 'sessions', 'alpha', 'state.json'), 'utf8'));
      assert.equal(state.generation, receipt.generation);
      assert.equal(state.pointer_text, 'Goal: ship\nNext: test');
      const events = readJsonl(join(home, 'sessions', 'alpha', 'events.jsonl'));
      assert.equal(events.at(-1).type, 'pointer.published');
      assert.equal(events.at(-1).surface, 'mcp');

      const now = await ok(c, 'pointer_get', { session: 'alpha' });
      assert.equal(now.status, 'CLEAN');
      assert.equal(now.next_action, 'CONTINUE');
      await unchanged(home, async () => {
        const r = await refused(c, 'pointer_publish', { session: 'alpha', expected_generation: 'ABSENT', expected_revision: 0, task_id: TASK, pointer_text: 'Goal: other' }, 'STALE_GENERATION');
        assert.equal(r.details.current_generation, receipt.generation);
        assert.equal(r.details.current_revision, 1);
        const s = await refused(c, 'pointer_publish', { session: 'alpha', expected_generation: receipt.generation, expected_revision: 0, task_id: TASK, pointer_text: 'Goal: other' }, 'STALE_REVISION');
        assert.match(s.next, /pointer_get/);
      });
      // Merged and retried with the returned values, it lands.
      const again = await ok(c, 'pointer_publish', { session: 'alpha', expected_generation: receipt.generation, expected_revision: 1, task_id: TASK, pointer_text: `Goal: ship\nNext: docs ${SECRET}` });
      assert.equal(again.revision, 2);
      assert.equal(again.redacted, 1);
      assert.ok(!fs.readFileSync(join(home, 'sessions', 'alpha', 'state.json'), 'utf8').includes(SECRET));
    });

    test('pointer_publish refuses a request the publisher refuses (INVALID_REQUEST) and a session that bars mcp', async () => {
      const cur = await ok(c, 'pointer_get', { session: 'alpha' });
      await unchanged(home, async () => {
        const r = await refused(c, 'pointer_publish', { session: 'alpha', expected_generation: cur.generation, expected_revision: cur.revision, task_id: TASK, pointer_text: 'x'.repeat(9000) }, 'INVALID_REQUEST');
        assert.equal(r.details.field, 'pointer_text');
        await refused(c, 'pointer_publish', { session: 'alpha', expected_generation: cur.generation, expected_revision: cur.revision, task_id: 'not-a-uuid', pointer_text: 'Goal: g' }, 'INVALID_REQUEST');
        const w = await refused(c, 'pointer_publish', { session: 'cli-only', expected_generation: 'ABSENT', expected_revision: 0, task_id: TASK, pointer_text: 'Goal: g' }, 'WRITE_FAILED');
        assert.equal(w.details.cause, 'WS302');
        await refused(c, 'pointer_publish', { session: 'nosuch', expected_generation: 'ABSENT', expected_revision: 0, task_id: TASK, pointer_text: 'Goal: g' }, 'WS001');
      });
    });

    test('bad arguments are USAGE refusals with the issue, and the server goes on', async () => {
      await unchanged(home, async () => {
        const r = await refused(c, 'pointer_get', { session: 42 }, 'USAGE');
        assert.equal(r.details.issues[0].path, 'session');
        await refused(c, 'pointer_publish', { session: 'alpha', expected_revision: 'one' }, 'USAGE');
        await refused(c, 'context_append', { session: 'alpha', text: '' }, 'USAGE');
        await refused(c, 'session_log', { session: 'alpha', limit: 0 }, 'USAGE');
        await refused(c, 'search', {}, 'USAGE');
        await refused(c, 'session_list', { bogus: true }, 'USAGE');
        await refused(c, 'session_list', { cursor: 'garbage' }, 'USAGE');
        await refused(c, 'pointer_get', { session: 'no/such' }, 'WS003');
        await refused(c, 'pointer_get', { session: 'nosuch' }, 'WS001');
        await assert.rejects(c.readResource({ uri: 'baton://session/nosuch/context' }));
      });
      assert.equal((await c.listTools()).tools.length, 8);
    });

    test('context_append: WS100 without the lease, WS101 when another holds it, WS002 archived, WS302 barred; resume: true takes a free lease', async () => {
      await unchanged(home, async () => {
        await refused(c, 'context_append', { session: 'alpha', text: 'a note' }, 'WS100');
        const held = await refused(c, 'context_append', { session: 'held', text: 'a note', resume: true }, 'WS101');
        assert.equal(held.details.holder.instance_id, 'cli-tester');
        await refused(c, 'context_append', { session: 'frozen', text: 'a note', resume: true }, 'WS002');
        await refused(c, 'context_append', { session: 'cli-only', text: 'a note', resume: true }, 'WS302');
      });
      const a = await ok(c, 'context_append', { session: 'alpha', text: `needle found; key ${SECRET}`, tags: ['finding'], resume: true });
      const b = await ok(c, 'context_append', { session: 'alpha', text: 'second note', resume: true });
      const events = readJsonl(join(home, 'sessions', 'alpha', 'events.jsonl'));
      const note = events.find((e) => e.seq === a.seq);
      assert.equal(note.type, 'context.appended');
      assert.equal(note.surface, 'mcp');
      assert.deepEqual(note.payload.tags, ['finding']);
      assert.ok(!JSON.stringify(note).includes(SECRET));
      // The lease is taken once: the second append does not resume again.
      assert.equal(events.filter((e) => e.type === 'session.resumed').length, 1);
      assert.equal(b.seq, a.seq + 1);
    });

    test('session_list pages with a cursor; session_log pages by seq and stays under 16 KiB', async () => {
      const p1 = await ok(c, 'session_list', { limit: 2 });
      assert.equal(p1.sessions.length, 2);
      assert.ok(p1.next_cursor);
      const p2 = await ok(c, 'session_list', { limit: 10, cursor: p1.next_cursor });
      const ids = [...p1.sessions, ...p2.sessions].map((s: { id: string }) => s.id).sort();
      assert.deepEqual(ids, ['alpha', 'cli-only', 'frozen', 'held']);
      assert.equal(p2.next_cursor, null);

      for (let i = 0; i < 30; i++) await ok(c, 'context_append', { session: 'alpha', text: `bulk ${i} ${'y'.repeat(1000)}` });
      const page = await call(c, 'session_log', { session: 'alpha' });
      assert.ok(!page.isError);
      assert.ok(Buffer.byteLength(page.content[0].text) <= 16 * 1024, `${Buffer.byteLength(page.content[0].text)} bytes`);
      const log = page.structuredContent;
      assert.equal(log.events[0].seq, 1);
      assert.equal(log.has_more, true);
      const next = await ok(c, 'session_log', { session: 'alpha', after: log.next_after, limit: 3 });
      assert.deepEqual(
        next.events.map((e: { seq: number }) => e.seq),
        [log.next_after + 1, log.next_after + 2, log.next_after + 3],
      );
      const big = await call(c, 'session_log', { session: 'alpha', maxBytes: 64 * 1024, limit: 1000 });
      assert.ok(Buffer.byteLength(big.content[0].text) > 16 * 1024, 'a page asked for is larger');
      assert.ok(!JSON.stringify(big.structuredContent).includes(SECRET));
      // An event larger than the page comes alone and whole, and paging on from it reaches the next.
      const large = await ok(c, 'context_append', { session: 'alpha', text: `large ${'z'.repeat(20_000)}` });
      const after = await ok(c, 'context_append', { session: 'alpha', text: 'after the large one' });
      const alone = await ok(c, 'session_log', { session: 'alpha', after: large.seq - 1 });
      assert.deepEqual([alone.events.map((e: { seq: number }) => e.seq), alone.next_after, alone.has_more, alone.oversize], [[large.seq], large.seq, true, true]);
      assert.equal(alone.events[0].payload.text.length, 20_006);
      const then = await ok(c, 'session_log', { session: 'alpha', after: alone.next_after });
      assert.deepEqual(
        then.events.map((e: { seq: number }) => e.seq),
        [after.seq],
      );
    });

    test('ref_capture and ref_list; search finds the note, redacted', async () => {
      const r = await ok(c, 'ref_capture', { from: 'held', into: 'alpha' });
      assert.equal(r.ref.source, 'held');
      assert.equal(r.ref.state, 'fresh');
      const list = await ok(c, 'ref_list', { session: 'alpha' });
      assert.deepEqual(
        list.refs.map((x: { source: string }) => x.source),
        ['held'],
      );
      await unchanged(home, async () => {
        await refused(c, 'ref_capture', { from: 'nosuch', into: 'alpha' }, 'WS001');
        await refused(c, 'ref_capture', { from: 'held', into: 'frozen' }, 'WS002');
        await refused(c, 'ref_capture', { from: 'held', into: 'alpha', ttl: 'soon' }, 'USAGE');
      });
      const found = await ok(c, 'search', { query: 'needle' });
      assert.equal(found.hits[0].session, 'alpha');
      assert.ok(!JSON.stringify(found).includes(SECRET));
    });

    test('the resources: a session context.md and its pointer', async () => {
      const ctx = await c.readResource({ uri: 'baton://session/alpha/context' });
      assert.match((ctx.contents[0] as { text: string }).text, /Alpha work/);
      const ptr = await c.readResource({ uri: 'baton://session/alpha/pointer' });
      const p = JSON.parse((ptr.contents[0] as { text: string }).text);
      assert.equal(p.session_id, 'alpha');
      assert.equal(p.status, 'CLEAN');
    });
  });
}

contract('stdio', async (home) => {
  const client = await stdioMcp(home);
  return { client, close: () => client.close() };
});

contract('http', async (home) => {
  const server: RunningServer = await startServer(home);
  const client = await httpMcp(server);
  return {
    client,
    close: async () => {
      await client.close();
      await server.stop();
    },
  };
});
