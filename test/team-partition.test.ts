// A network partition between a machine and the team's database (docs/team.md, Faults):
// machine B's replicator (`baton sync --watch`) runs in a network namespace joined to the host
// by a veth pair; the test's PostgreSQL (test/pg.ts) also listens on the host's end. The link
// is then cut silently — the host's end set down: B's packets vanish, nothing answers, no
// RST — while machine A goes on appending. B must say `unreachable` (TM002) within a bounded
// time instead of waiting on a dead socket for the kernel's TCP timeouts (minutes), then catch
// up once the link is back, every acknowledged event present exactly once on both machines.
// Needs root and iproute2's `ip` (CI runs as root); skipped with the reason otherwise.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BIN } from './helpers.ts';
import { type PgCluster, startPg } from './pg.ts';
import { type Machine, allAccounted, machine, note, until } from './team-machines.ts';

/** How long B may take to notice the cut: generous, yet far below the kernel's TCP timeouts (~15 min). */
const NOTICE_LIMIT_MS = 60_000;

const ip = (...args: string[]) => spawnSync('ip', args, { encoding: 'utf8' });
function ipOk(...args: string[]): void {
  const r = ip(...args);
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr || r.error}`);
}

const rand = randomBytes(3);
const ns = `baton-test-${rand.toString('hex')}`;
const hostDev = `bt${rand.toString('hex')}h`;
const nsDev = `bt${rand.toString('hex')}n`;
// A /30 in 10.213.0.0/16: .1 the host's end, .2 the namespace's.
const base = `10.213.${rand[0]}.${(rand[1] & 0x3f) * 4}`;
const hostAddr = base.replace(/\d+$/, (n) => String(Number(n) + 1));
const nsAddr = base.replace(/\d+$/, (n) => String(Number(n) + 2));

let skip: string | false = false;
if (process.getuid?.() !== 0) skip = 'needs root (network namespaces)';
else if (ip('-V').error) skip = "needs iproute2's `ip`";

let pg: PgCluster | undefined;
let made = false;
const children: ChildProcess[] = [];

before(async () => {
  if (skip) return;
  made = true;
  ipOk('netns', 'add', ns);
  ipOk('link', 'add', hostDev, 'type', 'veth', 'peer', 'name', nsDev);
  ipOk('link', 'set', nsDev, 'netns', ns);
  ipOk('addr', 'add', `${hostAddr}/30`, 'dev', hostDev);
  ipOk('link', 'set', hostDev, 'up');
  ipOk('netns', 'exec', ns, 'ip', 'addr', 'add', `${nsAddr}/30`, 'dev', nsDev);
  ipOk('netns', 'exec', ns, 'ip', 'link', 'set', nsDev, 'up');
  ipOk('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  pg = await startPg({ extra: { address: hostAddr, subnet: `${base}/30` } });
});

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  pg?.destroy();
  if (made) {
    ip('netns', 'del', ns); // takes the namespace's end of the pair, and with it the host's
    ip('link', 'del', hostDev);
  }
});

/** `baton sync --watch --json` for a machine, inside the namespace; its stdout lines parsed. */
function watchInNamespace(m: Machine): { p: ChildProcess; events: () => { event: string; [k: string]: unknown }[]; stderr: () => string; done: Promise<number | null> } {
  const p = spawn('ip', ['netns', 'exec', ns, process.execPath, BIN, 'sync', '--watch', '--json'], {
    env: { ...process.env, ...m.env, BATON_HOME: m.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(p);
  let out = '';
  let err = '';
  p.stdout?.on('data', (d) => {
    out += d;
  });
  p.stderr?.on('data', (d) => {
    err += d;
  });
  const done = new Promise<number | null>((r) => p.on('exit', (code) => r(code)));
  const events = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  return { p, events, stderr: () => err, done };
}

test('a silent partition: the replicator reports unreachable within a bounded time and catches up after', { skip }, async () => {
  assert.ok(pg);
  pg.psql('create database part');
  const a = machine('a');
  const b = machine('b');
  a.ok(['team', 'join', pg.url.replace(/\/postgres$/, '/part'), '--name', 'a']);
  // B reaches the database only through the veth pair.
  b.ok(['team', 'join', `postgres://postgres@${hostAddr}:${pg.port}/part`, '--name', 'b']);
  const id = a.ok(['session', 'new', 'across the partition']).id;
  const acked = [note(a, id, 'before the cut')];
  a.ok(['team', 'share', id]);

  const w = watchInNamespace(b);
  const has = (text: string) => fs.existsSync(join(b.home, 'sessions', id, 'events.jsonl')) && b.log(id).includes(text);
  await until(() => has('before the cut'), 'B replicates the shared session through the namespace');

  ipOk('link', 'set', hostDev, 'down');
  const cutAt = Date.now();
  const seen = w.events().length;
  let noticedMs = -1;
  try {
    // A goes on working (its own link is fine) while B's packets vanish.
    acked.push(note(a, id, 'during the cut 1'));
    acked.push(note(a, id, 'during the cut 2'));
    a.ok(['sync']);
    await until(() => w.events().slice(seen).some((e) => e.event === 'unreachable'), `B reports unreachable (stderr so far: ${w.stderr()})`, NOTICE_LIMIT_MS);
    noticedMs = Date.now() - cutAt;
    assert.ok(!has('during the cut 1'), 'nothing crossed the cut');
    // stderr is its own pipe: its line may arrive a moment after the event on stdout.
    await until(() => /TM002|unreachable/.test(w.stderr()), `B says so on stderr too (stderr so far: ${w.stderr()})`, 5000);
  } finally {
    ipOk('link', 'set', hostDev, 'up');
  }
  process.stderr.write(`# partition: B reported unreachable ${noticedMs} ms after the cut: ${w.stderr().split('\n')[0]}\n`);

  await until(() => has('during the cut 2'), 'B catches up once the link is back', 60_000);
  acked.push(note(a, id, 'after the cut'));
  a.ok(['sync']);
  await until(() => has('after the cut'), 'B is live again after the partition', 60_000);

  w.p.kill('SIGTERM');
  assert.equal(await w.done, 0, w.stderr());
  const evs = w.events();
  assert.equal(evs.at(-1)?.event, 'stopped');
  assert.ok(evs.filter((e) => e.event === 'connected').length >= 2, 'B connected again after the cut');
  allAccounted([a, b], id, acked);
});

test('SIGTERM during a partition ends the replicator (exit 0) without waiting on the dead link', { skip }, async () => {
  assert.ok(pg);
  pg.psql('create database part2');
  const a = machine('a');
  const b = machine('b');
  a.ok(['team', 'join', pg.url.replace(/\/postgres$/, '/part2'), '--name', 'a']);
  b.ok(['team', 'join', `postgres://postgres@${hostAddr}:${pg.port}/part2`, '--name', 'b']);
  const id = a.ok(['session', 'new', 'stopped in the dark']).id;
  const acked = [note(a, id, 'shared before the cut')];
  a.ok(['team', 'share', id]);
  const w = watchInNamespace(b);
  await until(() => fs.existsSync(join(b.home, 'sessions', id, 'events.jsonl')) && b.log(id).includes('shared before the cut'), 'B replicates the session');
  let code: number | null = -1;
  ipOk('link', 'set', hostDev, 'down');
  try {
    // B holds open connections (the LISTEN one, maybe a pass in flight) whose peer went silent.
    acked.push(note(a, id, 'written during the cut'));
    a.ok(['sync']);
    w.p.kill('SIGTERM');
    let exited = false;
    void w.done.then((c) => {
      code = c;
      exited = true;
    });
    await until(() => exited, `B exits on SIGTERM during the partition (stderr: ${w.stderr()})`, NOTICE_LIMIT_MS);
  } finally {
    ipOk('link', 'set', hostDev, 'up');
  }
  assert.equal(code, 0, w.stderr());
  assert.equal(w.events().at(-1)?.event, 'stopped');
  // Nothing was lost: a plain sync (from the namespace) brings B up to date.
  const r = spawnSync('ip', ['netns', 'exec', ns, process.execPath, BIN, 'sync', '--json'], { env: { ...process.env, ...b.env, BATON_HOME: b.home }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.ok(b.log(id).includes('written during the cut'));
  allAccounted([a, b], id, acked);
});
