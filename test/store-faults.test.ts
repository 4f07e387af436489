// Faults the store must survive: concurrent appenders, SIGKILL mid-append, a torn tail,
// tampering in the middle, racing lease takers. Black-box through the real binary and
// child processes using the built store (dist/lib.cjs).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, baton, batonAsync, readJsonl, tmpDir, treeHash } from './helpers.ts';

const APPENDER = join(ROOT, 'test', 'children', 'appender.cjs');
const CHILDREN = { BATON_INSTANCE: 'test-children' };

function newSession(home: string, id: string): void {
  const r = baton(['session', 'new', 'Fault test', '--id', id, '--lease', '2h'], { home, env: CHILDREN });
  assert.equal(r.code, 0, r.stderr);
}

function runChild(home: string, id: string, count: number, tag: string, startAt = 0, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; acks: number[]; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [APPENDER, home, id, String(count), tag, String(startAt)], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    c.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    c.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    c.on('close', (code) => resolve({ code, acks: out.split('\n').filter(Boolean).map((l) => Number(l.split(' ')[2])), stderr: err }));
  });
}

test('8 processes appending 200 events each: 1600 events, seq 1..N contiguous, chain valid, no interleaved line', async () => {
  const home = tmpDir();
  newSession(home, 'conc');
  const contextMd = join(home, 'sessions', 'conc', 'context.md');
  const contextBefore = fs.statSync(contextMd).mtimeMs;
  // All eight start appending at the same moment, once every one has loaded.
  const startAt = Date.now() + 2000;
  const results = await Promise.all(Array.from({ length: 8 }, (_, k) => runChild(home, 'conc', 200, `p${k}`, startAt)));
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const lines = fs.readFileSync(join(home, 'sessions', 'conc', 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
  const events = lines.map((l) => JSON.parse(l)); // throws on an interleaved line
  assert.equal(events.length, 2 + 1600);
  for (const [i, e] of events.entries()) assert.equal(e.seq, i + 1);
  const mine = events.filter((e) => e.type === 'x.test').map((e) => `${e.payload.tag}:${e.payload.i}`);
  assert.equal(new Set(mine).size, 1600);
  // The manifest kept up under contention by patches alone: no appender fell back to
  // rebuilding the projections from the whole log (that rewrites context.md).
  const manifest = JSON.parse(fs.readFileSync(join(home, 'sessions', 'conc', 'manifest.json'), 'utf8'));
  assert.equal(manifest.status.last_event_seq, 2 + 1600);
  assert.equal(fs.statSync(contextMd).mtimeMs, contextBefore, 'no appender rebuilt the projections');
  const v = baton(['session', 'verify', 'conc', '--json'], { home });
  assert.equal(v.code, 0, v.stderr);
  assert.equal(v.json.ok, true);
});

test('where hard links cannot be used (BATON_MUTEX_NO_LINKS=1: O_EXCL mutex files), 8 racing processes still lose and duplicate nothing', async () => {
  const home = tmpDir();
  newSession(home, 'nolinks');
  const startAt = Date.now() + 2000;
  const results = await Promise.all(Array.from({ length: 8 }, (_, k) => runChild(home, 'nolinks', 100, `p${k}`, startAt, { BATON_MUTEX_NO_LINKS: '1' })));
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const events = readJsonl(join(home, 'sessions', 'nolinks', 'events.jsonl'));
  assert.equal(events.length, 2 + 800);
  for (const [i, e] of events.entries()) assert.equal(e.seq, i + 1);
  assert.equal(new Set(events.filter((e) => e.type === 'x.test').map((e) => `${e.payload.tag}:${e.payload.i}`)).size, 800);
  assert.deepEqual(
    fs.readdirSync(join(home, 'sessions', 'nolinks')).filter((n) => n.startsWith('.mutex')),
    [],
  );
  assert.equal(baton(['session', 'verify', 'nolinks'], { home }).code, 0);
});

test('SIGKILL at random moments loses no acknowledged event; verify passes after the next append', async () => {
  const home = tmpDir();
  newSession(home, 'crash');
  const acked = new Set<string>();
  for (let round = 0; round < 12; round++) {
    const c: ChildProcess = spawn(process.execPath, [APPENDER, home, 'crash', '0', `r${round}`]);
    const closed = new Promise((r) => c.on('close', r));
    let out = '';
    let err = '';
    c.stdout?.setEncoding('utf8').on('data', (d) => (out += d));
    c.stderr?.setEncoding('utf8').on('data', (d) => (err += d));
    // Kill at a random moment once the child is appending.
    const t0 = Date.now();
    while (!out.includes('ack ') && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 40)));
    c.kill('SIGKILL');
    await closed;
    assert.equal(err, '', 'the child failed on its own');
    for (const l of out.split('\n')) if (l.startsWith('ack ')) acked.add(`${l.split(' ')[1]}:${l.split(' ')[2]}`);
  }
  assert.ok(acked.size > 0, 'the children acknowledged some appends');
  // The next append recovers (stale mutex, torn tail) and succeeds.
  const r = await runChild(home, 'crash', 1, 'after');
  assert.equal(r.code, 0, r.stderr);
  // The killed children's mutex tokens were swept by the next taker, which removed its own at exit.
  const left = fs.readdirSync(join(home, 'sessions', 'crash')).filter((n) => n.startsWith('.mutex'));
  assert.deepEqual(left, [], 'no mutex file or parked token is left behind');
  const events = readJsonl(join(home, 'sessions', 'crash', 'events.jsonl'));
  const inLog = new Set(events.filter((e) => e.type === 'x.test').map((e) => `${e.payload.tag}:${e.payload.i}`));
  for (const a of acked) assert.ok(inLog.has(a), `acknowledged ${a} is in the log`);
  const v = baton(['session', 'verify', 'crash'], { home });
  assert.equal(v.code, 0, v.stdout + v.stderr);
});

test('a mutex left empty by a holder killed between create and write, or held by a dead pid, is broken and the append lands', () => {
  const home = tmpDir();
  newSession(home, 'stale');
  const mutex = join(home, 'sessions', 'stale', '.mutex');
  // Empty and fresh: broken after the short grace, well inside the 5 s timeout.
  fs.writeFileSync(mutex, '');
  const a = baton(['session', 'append', 'stale', '--text', 'after an empty mutex'], { home, env: CHILDREN });
  assert.equal(a.code, 0, a.stderr);
  assert.equal(fs.existsSync(mutex), false, 'the append released the mutex it took');
  // A token naming a process on this host that is gone.
  const dead = spawn(process.execPath, ['-e', '0']);
  const deadPid = dead.pid;
  fs.writeFileSync(mutex, `${deadPid} ${hostname()} ${Date.now()} gone`);
  return new Promise<void>((resolve) => dead.on('close', () => resolve())).then(() => {
    const b = baton(['session', 'append', 'stale', '--text', 'after a dead holder'], { home, env: CHILDREN });
    assert.equal(b.code, 0, b.stderr);
    const texts = readJsonl(join(home, 'sessions', 'stale', 'events.jsonl')).map((e) => e.payload?.text);
    assert.deepEqual(texts.slice(-2), ['after an empty mutex', 'after a dead holder']);
  });
});

test('a torn tail is skipped by readers, quarantined by the next writer, and never deleted', () => {
  const home = tmpDir();
  newSession(home, 'torn');
  const log = join(home, 'sessions', 'torn', 'events.jsonl');
  fs.appendFileSync(log, '{"seq":3,"ts":"2026-11-29T21:00:00.000Z","type":"x.half');
  const v = baton(['session', 'verify', 'torn', '--json'], { home });
  assert.equal(v.code, 2);
  assert.ok(v.json.torn);
  const shown = baton(['session', 'log', 'torn', '--json'], { home });
  assert.equal(shown.code, 0);
  assert.equal(shown.json.events.length, 2, 'readers skip the torn line');
  const a = baton(['session', 'append', 'torn', '--text', 'after the crash'], { home, env: CHILDREN });
  assert.equal(a.code, 0, a.stderr);
  const q = fs.readdirSync(join(home, 'sessions', 'torn', 'quarantine'));
  assert.equal(q.length, 1);
  assert.match(fs.readFileSync(join(home, 'sessions', 'torn', 'quarantine', q[0]), 'utf8'), /x\.half$/);
  const events = readJsonl(log);
  assert.deepEqual(events.map((e) => e.seq), [1, 2, 3]);
  assert.equal(baton(['session', 'verify', 'torn'], { home }).code, 0);
});

test('repair quarantines a torn tail on demand', () => {
  const home = tmpDir();
  newSession(home, 'rep');
  fs.appendFileSync(join(home, 'sessions', 'rep', 'events.jsonl'), '{"seq":3,"ts"');
  const r = baton(['session', 'repair', 'rep', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.json.quarantined);
  assert.equal(baton(['session', 'verify', 'rep'], { home }).code, 0);
});

test('one byte changed in a middle line: verify names the line (WS201) and appends are refused', () => {
  const home = tmpDir();
  newSession(home, 'tamper');
  for (const t of ['one', 'two', 'three']) assert.equal(baton(['session', 'append', 'tamper', '--text', t], { home, env: CHILDREN }).code, 0);
  const log = join(home, 'sessions', 'tamper', 'events.jsonl');
  const text = fs.readFileSync(log, 'utf8');
  const at = text.indexOf('"two"') + 2;
  fs.writeFileSync(log, text.slice(0, at) + 'W' + text.slice(at + 1));
  const v = baton(['session', 'verify', 'tamper', '--json'], { home });
  assert.equal(v.code, 2);
  assert.equal(v.json.corrupt.line, 4);
  assert.match(v.stderr, /WS201.*line 4/);
  const before = treeHash(home);
  const a = baton(['session', 'append', 'tamper', '--text', 'four'], { home, env: CHILDREN });
  assert.equal(a.code, 2);
  assert.match(a.stderr, /WS201/);
  assert.equal(treeHash(home), before, 'a refused append changes nothing');
});

test('two instances racing to take a free lease: exactly one wins', async () => {
  const home = tmpDir();
  newSession(home, 'race');
  assert.equal(baton(['session', 'release', 'race'], { home, env: CHILDREN }).code, 0);
  const rs = await Promise.all(['a', 'b', 'c', 'd'].map((n) => batonAsync(['session', 'resume', 'race'], { home, env: { BATON_INSTANCE: `inst-${n}` } })));
  assert.equal(rs.filter((r) => r.code === 0).length, 1, rs.map((r) => r.stderr).join('\n'));
  for (const r of rs.filter((x) => x.code !== 0)) assert.match(r.stderr, /WS101/);
});

test('an expired lease is taken only with --steal, and of two racing stealers exactly one wins', async () => {
  const home = tmpDir();
  const r0 = baton(['session', 'new', 'Steal', '--id', 'st', '--lease', '300ms'], { home, env: { BATON_INSTANCE: 'owner' } });
  assert.equal(r0.code, 0);
  await new Promise((r) => setTimeout(r, 500));
  const before = treeHash(home);
  const plain = baton(['session', 'resume', 'st'], { home, env: { BATON_INSTANCE: 'thief' } });
  assert.equal(plain.code, 2);
  assert.match(plain.stderr, /WS102.*--steal/);
  assert.equal(treeHash(home), before);
  const rs = await Promise.all(['x', 'y', 'z'].map((n) => batonAsync(['session', 'resume', 'st', '--steal'], { home, env: { BATON_INSTANCE: `thief-${n}` } })));
  assert.equal(rs.filter((r) => r.code === 0).length, 1, rs.map((r) => r.stderr).join('\n'));
  const lock = JSON.parse(fs.readFileSync(join(home, 'sessions', 'st', 'lock.json'), 'utf8'));
  const winner = rs.findIndex((r) => r.code === 0);
  assert.equal(lock.holder.instance_id, `thief-${['x', 'y', 'z'][winner]}`);
});
