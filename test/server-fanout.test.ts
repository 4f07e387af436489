// event/subscribe's shared reading (server.md, How subscriptions notice appends): one tail
// reader per session feeds every subscription that is caught up; one that is behind — its
// replay gap, or a client that stopped reading — reads on its own and joins again. Pinned
// here: many subscribers of one session, one joining mid-stream from the past, one leaving,
// each sees every event once, in order; a client that stops reading makes the server hold
// a bounded backlog, not the stream, and gets everything once it reads again; a corrupt line
// stops every subscription before it, the ones fed by the tail and the ones reading alone;
// a redaction is one more event live, and applied to what a later subscriber replays.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { ROOT, baton, readJsonl, tmpDir } from './helpers.ts';
import { type RunningServer, startServer, stdioClient, until, wsClient } from './server-helpers.ts';

// The instance test/children/appender.cjs writes as: the lease holder of every session here.
const CLI = { BATON_INSTANCE: 'test-children' };
const APPENDER = join(ROOT, 'test', 'children', 'appender.cjs');

let home: string;
let ws: string;
let s: RunningServer;

before(async () => {
  home = tmpDir();
  ws = tmpDir('baton-ws-');
  s = await startServer(home);
});

after(async () => {
  if (s) await s.stop();
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(ws, { recursive: true, force: true });
});

function newSession(id: string): void {
  const r = baton(['session', 'new', 'Fanout', '--id', id, '--cwd', ws, '--lease', '2h'], { home, env: CLI });
  assert.equal(r.code, 0, r.stderr);
}

/** Another process appends `count` events back to back through the store API (one fsync each). */
function appendInChild(id: string, count: number, pad = 200): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [APPENDER, home, id, String(count), 'fan', '', String(pad)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`appender exited ${code}: ${err}`))));
  });
}

const seqsOf = (id: string): number[] => readJsonl(join(home, 'sessions', id, 'events.jsonl')).map((e) => e.seq);

test('subscribers of one session, one joining mid-stream from the past and one leaving, each see every event once, in order', async () => {
  const id = 'fan';
  newSession(id);
  const first = seqsOf(id).length;
  const a = await wsClient(s, 'a');
  const b = await wsClient(s, 'b');
  const leaver = await wsClient(s, 'leaver');
  // Over stdio (its own server process): the same frames, written as lines.
  const piped = await stdioClient(home, 'piped');
  const got: Record<string, number[]> = { a: [], b: [], leaver: [], piped: [], late: [] };
  a.onEvent((n) => got.a.push(n.event.seq));
  b.onEvent((n) => got.b.push(n.event.seq));
  leaver.onEvent((n) => got.leaver.push(n.event.seq));
  piped.onEvent((n) => got.piped.push(n.event.seq));
  await a.eventSubscribe({ threadId: id });
  await b.eventSubscribe({ threadId: id });
  const left = await leaver.eventSubscribe({ threadId: id });
  await piped.eventSubscribe({ threadId: id });
  const late = await wsClient(s, 'late');
  late.onEvent((n) => got.late.push(n.event.seq));
  try {
    const appending = appendInChild(id, 300);
    appending.catch(() => {}); // awaited below; a failure is reported there
    // Mid-stream (whatever the moment, the outcome is the same): one leaves, one joins with a gap to fill.
    await until(() => got.a.length >= 50, 'the stream to start');
    await leaver.eventUnsubscribe({ subscriptionId: left.subscriptionId });
    // Every notification of that subscription was sent before the answer, on the same socket: none follows.
    const leftWith = got.leaver.length;
    await late.eventSubscribe({ threadId: id, after: 1 });
    await appending;
    const log = seqsOf(id);
    assert.equal(log.length, first + 300);
    await until(() => got.a.length >= 300 && got.b.length >= 300 && got.piped.length >= 300 && got.late.length >= log.length - 1, 'every subscriber to catch up');
    assert.deepEqual(got.a, log.slice(first), 'a: every event after it subscribed, once, in order');
    assert.deepEqual(got.b, log.slice(first), 'b: the same');
    assert.deepEqual(got.piped, log.slice(first), 'stdio: the same');
    assert.deepEqual(got.late, log.slice(1), 'the late one: its gap from seq 2, then live, no seam');
    assert.ok(leftWith >= 1, 'the leaver had events before it left');
    assert.deepEqual(got.leaver, log.slice(first, first + leftWith), 'the leaver: a prefix, once, in order');
    // The others carried on after it left; it got nothing more.
    await leaver.threadRead({ threadId: id });
    assert.equal(got.leaver.length, leftWith);
  } finally {
    for (const c of [a, b, leaver, piped, late]) c.close();
  }
});

test('a subscriber that stops reading makes the server hold a bounded backlog, and gets every event once it reads again', async () => {
  const id = 'slow';
  newSession(id);
  const first = seqsOf(id).length;
  const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${s.proc.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const fast = await wsClient(s, 'fast');
  const seenFast: number[] = [];
  fast.onEvent((n) => seenFast.push(n.event.seq));
  await fast.eventSubscribe({ threadId: id });
  // The slow one is a raw socket that stops reading once subscribed.
  const sock = new WebSocket(s.wsUrl, { headers: { authorization: `Bearer ${s.token}` } });
  const seenSlow: number[] = [];
  const answered: unknown[] = [];
  sock.on('message', (d: Buffer) => {
    const m = JSON.parse(d.toString('utf8'));
    if (m.method === 'event/appended') seenSlow.push(m.params.event.seq);
    else answered.push(m);
  });
  await new Promise((r) => sock.on('open', r));
  sock.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'slow', version: '1' } } }));
  sock.send(JSON.stringify({ jsonrpc: '2.0', method: 'initialized' }));
  sock.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'event/subscribe', params: { threadId: id } }));
  await until(() => answered.length >= 2, 'the subscription');
  const socket = (sock as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  socket.pause();
  try {
    const base = rss();
    // 80 MiB of events while it does not read: held whole, the server would grow by as much.
    await appendInChild(id, 800, 100_000);
    const log = seqsOf(id);
    assert.equal(log.length, first + 800);
    await until(() => seenFast.length >= 800, 'the fast subscriber to have everything', 120_000);
    const grown = rss() - base;
    assert.ok(grown < 40 * 1024 * 1024, `server RSS grew ${Math.round(grown / 1048576)} MiB while a subscriber did not read`);
    assert.deepEqual(seenFast, log.slice(first), 'the fast subscriber was not held back');
    assert.ok(seenSlow.length < 800, 'the slow subscriber had not read everything yet');
    socket.resume();
    await until(() => seenSlow.length >= 800, 'the slow subscriber to catch up', 120_000);
    assert.deepEqual(seenSlow, log.slice(first), 'once it reads again: every event once, in order');
    // And it is live again: the next append reaches both.
    assert.equal(baton(['session', 'append', id, '--text', 'after the catch-up'], { home, env: CLI }).code, 0);
    await until(() => seenSlow.length > 800 && seenFast.length > 800, 'the next event');
    assert.deepEqual(seenSlow, seqsOf(id).slice(first));
    assert.deepEqual(seenFast, seenSlow);
  } finally {
    sock.terminate();
    fast.close();
  }
});

test('a corrupt line stops every subscription at it, fed or reading alone, and is never delivered', async () => {
  const id = 'bad';
  newSession(id);
  for (let i = 0; i < 3; i++) assert.equal(baton(['session', 'append', id, '--text', `good ${i}`], { home, env: CLI }).code, 0);
  const good = seqsOf(id);
  const live = await wsClient(s, 'live');
  const replaying = await wsClient(s, 'replaying');
  const seenLive: number[] = [];
  const seenReplay: number[] = [];
  live.onEvent((n) => seenLive.push(n.event.seq));
  replaying.onEvent((n) => seenReplay.push(n.event.seq));
  const subLive = await live.eventSubscribe({ threadId: id });
  const subReplay = await replaying.eventSubscribe({ threadId: id, after: 0 });
  await until(() => seenReplay.length >= good.length, 'the replay');
  const path = join(home, 'sessions', id, 'events.jsonl');
  const last = JSON.parse(fs.readFileSync(path, 'utf8').trim().split('\n').at(-1) as string);
  // The next seq, but its hash does not continue the chain.
  fs.appendFileSync(path, `${JSON.stringify({ ...last, seq: last.seq + 1, payload: { text: 'forged' } })}\n`);
  const stopped = (sub: string): boolean => s.stderr().includes(`subscription ${sub} on ${id} stopped: events log corrupt at seq ${last.seq + 1}`);
  await until(() => stopped(subLive.subscriptionId) && stopped(subReplay.subscriptionId), 'both subscriptions to stop (WS201)');
  // A new subscriber reading from the start on its own stops there too.
  const fresh = await wsClient(s, 'fresh');
  const seenFresh: number[] = [];
  fresh.onEvent((n) => seenFresh.push(n.event.seq));
  const subFresh = await fresh.eventSubscribe({ threadId: id, after: 0 });
  try {
    await until(() => stopped(subFresh.subscriptionId), 'the fresh subscription to stop');
    // Answers after the stop come after every notification sent before it.
    await Promise.all([live.threadRead({ threadId: id }), replaying.threadRead({ threadId: id }), fresh.threadRead({ threadId: id })]);
    assert.deepEqual(seenLive, [], 'the live subscriber got nothing: the only new line was corrupt');
    assert.deepEqual(seenReplay, good);
    assert.deepEqual(seenFresh, good);
    assert.match(s.stderr(), /\(WS201\)/);
  } finally {
    for (const c of [live, replaying, fresh]) c.close();
  }
});

test('session redact reaches subscribers as its event; a subscriber replaying afterwards sees the text redacted', async () => {
  const id = 'redacted';
  newSession(id);
  const live = await wsClient(s, 'live');
  const seenLive: { seq: number; type: string; text?: string }[] = [];
  live.onEvent((n) => seenLive.push({ seq: n.event.seq, type: n.event.type, text: (n.event.payload as { text?: string }).text }));
  await live.eventSubscribe({ threadId: id });
  assert.equal(baton(['session', 'append', id, '--text', 'codename BLUEBIRD is internal'], { home, env: CLI }).code, 0);
  await until(() => seenLive.length >= 1, 'the append');
  assert.match(seenLive[0].text ?? '', /BLUEBIRD/, 'delivered as it was appended');
  assert.equal(baton(['session', 'redact', id, '--pattern', 'BLUEBIRD'], { home, env: CLI }).code, 0);
  assert.equal(baton(['session', 'append', id, '--text', 'after the redaction'], { home, env: CLI }).code, 0);
  const log = seqsOf(id);
  await until(() => seenLive.length >= 3, 'the redaction and the next append');
  assert.deepEqual(
    seenLive.map((e) => e.seq),
    log.slice(-3),
  );
  assert.equal(seenLive[1].type, 'context.rewritten');
  // From the start, on its own, then joining the tail: the secret is redacted, the rest as is.
  const later = await wsClient(s, 'later');
  const seenLater: { seq: number; text?: string }[] = [];
  later.onEvent((n) => seenLater.push({ seq: n.event.seq, text: (n.event.payload as { text?: string }).text }));
  await later.eventSubscribe({ threadId: id, after: 0 });
  assert.equal(baton(['session', 'append', id, '--text', 'live again'], { home, env: CLI }).code, 0);
  try {
    await until(() => seenLater.length >= log.length + 1 && seenLive.length >= 4, 'the replay and the live event');
    assert.deepEqual(
      seenLater.map((e) => e.seq),
      seqsOf(id),
    );
    const secret = seenLater.find((e) => e.seq === seenLive[0].seq);
    assert.ok(secret?.text !== undefined && !secret.text.includes('BLUEBIRD'), `redacted in the replay: ${secret?.text}`);
    assert.equal(seenLater.at(-1)?.text, 'live again');
    assert.equal(seenLive.at(-1)?.text, 'live again');
  } finally {
    live.close();
    later.close();
  }
});
