// Team mode through the app server and MCP (docs/team.md, docs/server.md, docs/mcp.md): thread/resume on a shared
// session another machine owned takes it first (never steals), thread/release on one owned
// here pushes everything and gives ownership up — the same rules as `session resume` /
// `session release`, from the same code (src/ops/team.ts). A private PostgreSQL cluster
// (test/pg.ts), machines as BATON_HOMEs, the real `baton serve` and the built BatonClient;
// each refusal leaves the session's folder unchanged; the test ends with every machine's log
// verified and every acknowledged text present exactly once.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { treeHash } from './helpers.ts';
import { type PgCluster, startPg } from './pg.ts';
import { ok as mcpOk, refused as mcpRefused, stdioMcp } from './mcp-helpers.ts';
import { startServer, wsClient } from './server-helpers.ts';
import { type Machine, allAccounted, note, team, until } from './team-machines.ts';

let pg: PgCluster;
before(async () => {
  pg = await startPg();
});
after(() => pg?.destroy());

const types = (m: Machine, id: string) =>
  m
    .log(id)
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { seq: number; type: string; surface: string; payload: Record<string, any> });

/** The refusal a call gives (a JSON-RPC error whose data.code is baton's), with the session's folder unchanged. */
async function refused(m: Machine, id: string, call: () => Promise<unknown>, code: string): Promise<any> {
  const dir = join(m.home, 'sessions', id);
  const before = treeHash(dir);
  const e = (await call().then(
    () => assert.fail(`${m.name}: the call should be refused with ${code}`),
    (x) => x,
  )) as { code: number; data?: { code?: string; message?: string; details?: Record<string, unknown> } };
  assert.equal(e.code, -32000, String(e));
  assert.equal(e.data?.code, code, JSON.stringify(e.data));
  assert.equal(treeHash(dir), before, `${m.name}: the refused call changed the session's folder`);
  return e.data;
}

test('thread/resume takes a shared session (never steals, WS105 / TM002 before anything moves); thread/release pushes and gives ownership up', async () => {
  const {
    db,
    machines: [a, b],
  } = team(pg, 'a', 'b');
  const owner = () => pg.psql(`select coalesce(owner, '-') || ' ' || epoch from baton.sessions where id = '${id}'`, db).trim();
  const acked: string[] = [];
  const id = a.ok(['session', 'new', 'hand over through the server']).id;
  acked.push(note(a, id, 'a starts'));
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  acked.push(note(a, id, 'a goes on, not pushed yet'));

  // b's server without its replicator: what thread/resume pulls is exactly what a pushed.
  const server = await startServer(b.home, ['--no-team']);
  const c = await wsClient(server, 'ide');
  try {
    // Owned by a: thread/resume on b is refused with WS105 naming a, before anything is pulled.
    const e = await refused(b, id, () => c.threadResume({ threadId: id }), 'WS105');
    assert.match(e.message, /owned by a since/);
    assert.equal(e.details.owner, 'a');
    // A replica may not release either (not its lease, not its ownership).
    await refused(b, id, () => c.threadRelease({ threadId: id }), 'WS105');
    assert.equal(owner(), 'a 1');

    // a gives ownership up with its lease still open: the next owner ends that lease.
    a.ok(['team', 'release', id]);
    assert.equal(owner(), '- 1');
    // The database down: TM002, nothing taken, nothing pulled.
    pg.stop();
    try {
      await refused(b, id, () => c.threadResume({ threadId: id }), 'TM002');
    } finally {
      pg.start();
    }

    // Now thread/resume takes it: epoch 2, a's events pulled, then a's lease ended
    // (lock.released ownership_moved), then this connection's lease and its resume.
    const before = types(b, id).length;
    const res = await c.threadResume({ threadId: id });
    const pushedByA = types(a, id).length - before;
    assert.deepEqual(res.team, { epoch: 2, previousOwner: null, pulled: pushedByA });
    assert.ok(pushedByA >= 1);
    assert.ok(res.context.includes('a goes on, not pushed yet'));
    assert.equal(owner(), 'b 2');
    const evs = types(b, id);
    const pulledLast = evs.findIndex((x) => x.payload.text === 'a goes on, not pushed yet');
    const moved = evs.findIndex((x) => x.type === 'lock.released' && x.payload.reason === 'ownership_moved');
    assert.ok(moved > pulledLast && pulledLast > 0, 'ownership_moved comes after the pulled events');
    assert.equal(evs[moved + 1].type, 'lock.acquired');
    assert.equal(evs[moved + 1].surface, 'api');
    assert.equal(evs[moved + 2].type, 'session.resumed');
    assert.equal(res.lastSeq, evs[evs.length - 1].seq);

    // Resuming a session owned here needs no database and reports no take.
    await c.contextAppend({ threadId: id, text: 'b writes through the server' });
    acked.push('b writes through the server');
    const again = await c.threadResume({ threadId: id });
    assert.equal(again.team, undefined);

    // thread/release: the lease, then everything pushed and ownership given up.
    const rel = await c.threadRelease({ threadId: id });
    assert.equal(rel.team?.released, true);
    assert.ok((rel.team?.pushed ?? 0) >= 3, JSON.stringify(rel));
    assert.equal(owner(), '- 2');
    const last = types(b, id).at(-1);
    assert.equal(last?.type, 'lock.released');
    assert.equal(rel.seq, last?.seq);
    // b no longer owns it: its next resume would take it again, its release is refused.
    await refused(b, id, () => c.threadRelease({ threadId: id }), 'WS105');
  } finally {
    c.close();
    await server.stop();
  }

  // a resumes it from the command line: epoch 3, b's events pulled.
  const back = a.ok(['session', 'resume', id]);
  assert.equal(back.team.epoch, 3);
  assert.ok(back.context.includes('b writes through the server'));
  acked.push(note(a, id, 'a again'));
  a.ok(['sync']);
  b.ok(['sync']);
  allAccounted([a, b], id, acked);
});

test("a server whose home joined a team (its replicator running) takes a released session on thread/resume and gives it back on thread/release", async () => {
  const {
    db,
    machines: [a, b],
  } = team(pg, 'a', 'b');
  const acked: string[] = [];
  const id = a.ok(['session', 'new', 'through a replicating server']).id;
  acked.push(note(a, id, 'a writes'));
  a.ok(['team', 'share', id]);
  a.ok(['session', 'release', id]);
  const server = await startServer(b.home);
  const c = await wsClient(server, 'ide');
  try {
    // The server's replicator brings the session here (a replica: nobody owns it).
    await until(() => fs.existsSync(join(b.home, 'sessions', id, 'team.json')), 'the replicator pulls the shared session');
    const res = await c.threadResume({ threadId: id });
    assert.equal(res.team?.epoch, 2);
    assert.ok(res.context.includes('a writes'));
    await c.contextAppend({ threadId: id, text: 'b through its server' });
    acked.push('b through its server');
    const rel = await c.threadRelease({ threadId: id });
    assert.equal(rel.team?.released, true);
    assert.equal(pg.psql(`select coalesce(owner, '-') from baton.sessions where id = '${id}'`, db).trim(), '-');
  } finally {
    c.close();
    await server.stop();
  }
  assert.equal(a.ok(['session', 'resume', id]).team.epoch, 3);
  acked.push(note(a, id, 'a back'));
  a.ok(['sync']);
  b.ok(['sync']);
  allAccounted([a, b], id, acked);
});

test('MCP context_append with resume: true takes a shared session nobody owns (WS105 while another machine owns it, the disk unchanged)', async () => {
  const {
    db,
    machines: [a, b],
  } = team(pg, 'a', 'b');
  const acked: string[] = [];
  const id = a.ok(['session', 'new', 'through MCP']).id;
  acked.push(note(a, id, 'a writes'));
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  const c = await stdioMcp(b.home, { env: { BATON_INSTANCE: 'mcp@b' } });
  try {
    const dir = join(b.home, 'sessions', id);
    const before = treeHash(dir);
    const r = await mcpRefused(c, 'context_append', { session: id, text: 'not while a owns it', resume: true }, 'WS105');
    assert.equal(r.details.owner, 'a');
    assert.match(r.next, /baton team take/);
    assert.equal(treeHash(dir), before, 'the refused call changed the session folder');
    a.ok(['session', 'release', id]);
    const w = await mcpOk(c, 'context_append', { session: id, text: 'b through MCP', resume: true });
    acked.push('b through MCP');
    assert.equal(pg.psql(`select owner || ' ' || epoch from baton.sessions where id = '${id}'`, db).trim(), 'b 2');
    const evs = types(b, id);
    assert.equal(evs.at(-1)?.seq, w.seq);
    assert.deepEqual(
      evs.slice(-3).map((x) => `${x.type} ${x.surface}`),
      ['lock.acquired mcp', 'session.resumed mcp', 'context.appended mcp'],
    );
  } finally {
    await c.close();
  }
  // The MCP server's lease is still open: b gives ownership up, a's take ends that lease.
  b.ok(['team', 'release', id]);
  assert.equal(a.ok(['session', 'resume', id]).team.epoch, 3);
  a.ok(['sync']);
  b.ok(['sync']);
  allAccounted([a, b], id, acked);
});
