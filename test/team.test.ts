// Team mode end to end (docs/team.md): a private PostgreSQL cluster (test/pg.ts), two or three
// BATON_HOMEs acting as machines, the real binary. Each test gets its own database and ends
// with every machine's log verified (`session verify`).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunResult, baton, tmpDir, treeHash } from './helpers.ts';
import { type PgCluster, startPg } from './pg.ts';

let pg: PgCluster;
before(async () => {
  pg = await startPg();
});
after(() => pg?.destroy());

let dbs = 0;
interface Machine {
  name: string;
  home: string;
  run(args: string[], input?: string): RunResult;
  ok(args: string[]): any;
  log(id: string): string;
}

function machine(name: string): Machine {
  const home = tmpDir(`baton-team-${name}-`);
  const env = { BATON_INSTANCE: `cli@${name}` };
  const m: Machine = {
    name,
    home,
    run: (args, input) => baton([...args, '--json'], { home, env, input }),
    ok(args) {
      const r = m.run(args);
      assert.equal(r.code, 0, `${name}: baton ${args.join(' ')} -> ${r.code}\n${r.stdout}\n${r.stderr}`);
      return r.json;
    },
    log: (id) => fs.readFileSync(join(home, 'sessions', id, 'events.jsonl'), 'utf8'),
  };
  return m;
}

/** A fresh database and `n` machines joined to it. */
function team(...names: string[]): { url: string; machines: Machine[] } {
  const db = `t${++dbs}`;
  pg.psql(`create database ${db}`);
  const url = pg.url.replace(/\/postgres$/, `/${db}`);
  const machines = names.map(machine);
  for (const m of machines) m.ok(['team', 'join', url, '--name', m.name]);
  return { url, machines };
}

function verified(m: Machine, id: string): void {
  m.ok(['session', 'verify', id]);
}

function newSession(m: Machine, title: string): string {
  return m.ok(['session', 'new', title]).id;
}

function appendText(m: Machine, id: string, text: string): RunResult {
  return m.run(['session', 'append', id, '--text', text]);
}

test('join keeps the URL 0600 and never prints the password', () => {
  const db = `t${++dbs}`;
  pg.psql(`create database ${db}`);
  pg.psql(`do $$ begin if not exists (select from pg_roles where rolname = 'alice') then create role alice login password 's3cret-pw'; end if; end $$`);
  const url = pg.url.replace('postgres@', 'alice:s3cret-pw@').replace(/\/postgres$/, `/${db}`);
  pg.psql(`grant all on database ${db} to alice`);
  const a = machine('a');
  const r = a.run(['team', 'join', url, '--name', 'laptop']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes('s3cret-pw') && !r.stderr.includes('s3cret-pw'));
  assert.equal(r.json.machine, 'laptop');
  assert.equal(fs.statSync(join(a.home, 'team.json')).mode & 0o777, 0o600);
  const s = a.run(['team', 'status']);
  assert.equal(s.code, 0, s.stderr);
  assert.ok(!s.stdout.includes('s3cret-pw'));
  assert.equal(s.json.reachable, true);
  // A bad URL is refused before anything is written.
  const b = machine('b');
  const bad = b.run(['team', 'join', 'http://nope', '--name', 'b']);
  assert.equal(bad.code, 2);
  assert.equal(bad.json.error.code, 'USAGE');
  assert.ok(!fs.existsSync(join(b.home, 'team.json')));
  const badName = b.run(['team', 'join', url, '--name', '../x']);
  assert.equal(badName.json.error.code, 'USAGE');
  assert.ok(!fs.existsSync(join(b.home, 'team.json')));
});

test('share and sync propagate A to B byte for byte; B is a read-only replica (WS105, disk unchanged)', () => {
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'shared work');
  assert.equal(appendText(a, id, 'first note').code, 0);
  const shared = a.ok(['team', 'share', id]);
  assert.equal(shared.epoch, 1);
  assert.equal(shared.pushed, 3);
  const list = b.ok(['team', 'list']);
  assert.deepEqual(
    list.sessions.map((s: any) => [s.id, s.owner, s.last_seq]),
    [[id, 'a', 3]],
  );
  assert.ok(!JSON.stringify(list).includes(a.home), 'no local absolute path in the team list');
  const s1 = b.ok(['sync']);
  assert.equal(s1.pulled[0].pulled, 3);
  assert.equal(b.log(id), a.log(id));
  // More on A, then a second sync moves only the new event.
  assert.equal(appendText(a, id, 'second note').code, 0);
  assert.equal(a.ok(['sync']).pushed[0].pushed, 1);
  assert.equal(b.ok(['sync']).pulled[0].pulled, 1);
  assert.equal(b.log(id), a.log(id));
  // B may not write: WS105 names the owner, and nothing on B's disk moves.
  const before = treeHash(b.home);
  const w = appendText(b, id, 'not mine');
  assert.equal(w.code, 2);
  assert.equal(w.json.error.code, 'WS105');
  assert.match(w.json.error.message, /owned by a since/);
  assert.equal(w.json.error.command, `baton team take ${id}`);
  const res = b.run(['session', 'resume', id]);
  assert.equal(res.json.error.code, 'WS105');
  assert.equal(treeHash(b.home), before);
  verified(a, id);
  verified(b, id);
});

test('take moves ownership: B writes, A is refused, and A catches up', () => {
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'handover');
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  // Without --steal, take needs the owner to release first.
  const refused = b.run(['team', 'take', id]);
  assert.equal(refused.code, 2);
  assert.equal(refused.json.error.code, 'WS105');
  assert.equal(appendText(a, id, 'last words of a').code, 0);
  a.ok(['team', 'release', id]);
  assert.equal(appendText(a, id, 'after release').json.error.code, 'WS105');
  const took = b.ok(['team', 'take', id]);
  assert.equal(took.epoch, 2);
  assert.equal(took.previous_owner, null);
  b.ok(['session', 'resume', id]);
  assert.equal(appendText(b, id, 'b writes now').code, 0);
  b.ok(['sync']);
  a.ok(['sync']);
  const w = appendText(a, id, 'a again');
  assert.equal(w.json.error.code, 'WS105');
  assert.match(w.json.error.message, /owned by b since/);
  assert.equal(a.log(id), b.log(id));
  assert.ok(a.log(id).includes('"reason":"ownership_moved"'));
  verified(a, id);
  verified(b, id);
});

test('two machines taking at once: exactly one wins', async () => {
  const {
    machines: [a, b, c],
  } = team('a', 'b', 'c');
  const id = newSession(a, 'contended');
  a.ok(['team', 'share', id]);
  a.ok(['team', 'release', id]);
  b.ok(['sync']);
  c.ok(['sync']);
  const { batonAsync } = await import('./helpers.ts');
  const [rb, rc] = await Promise.all([b, c].map((m) => batonAsync(['team', 'take', id, '--json'], { home: m.home, env: { BATON_INSTANCE: `cli@${m.name}` } })));
  const codes = [rb.code, rc.code].sort();
  assert.deepEqual(codes, [0, 2], `${rb.stderr}\n${rc.stderr}`);
  const loser = rb.code === 2 ? rb : rc;
  assert.equal(loser.json.error.code, 'WS105');
  const winner = rb.code === 0 ? b : c;
  const list = a.ok(['team', 'list']);
  assert.equal(list.sessions[0].owner, winner.name);
  assert.equal(list.sessions[0].epoch, 2);
  for (const m of [a, b, c]) m.ok(['sync']);
  for (const m of [a, b, c]) verified(m, id);
});

test('steal from an offline owner: its unpushed events end in conflicts/, nothing lost', () => {
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'stolen');
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  // A goes on writing without syncing ("offline"); B steals.
  assert.equal(appendText(a, id, 'unpushed one').code, 0);
  assert.equal(appendText(a, id, 'unpushed two').code, 0);
  const aLines = a.log(id).trimEnd().split('\n');
  const unpushed = aLines.slice(-2);
  const took = b.ok(['team', 'take', id, '--steal']);
  assert.equal(took.previous_owner, 'a');
  b.ok(['session', 'resume', id]);
  assert.equal(appendText(b, id, 'b after the steal').code, 0);
  b.ok(['sync']);
  // A comes back: its fork is kept, its log becomes the team's, and it may no longer write.
  const back = a.ok(['sync']);
  const kept = back.pulled[0].conflict;
  assert.equal(kept.events, 2);
  assert.equal(kept.path, join(a.home, 'sessions', id, 'conflicts', '1-a.jsonl'));
  assert.deepEqual(fs.readFileSync(kept.path, 'utf8').trimEnd().split('\n'), unpushed);
  assert.equal(a.log(id), b.log(id));
  const st = a.run(['team', 'status']);
  assert.equal(st.code, 1);
  assert.equal(st.json.conflicts[0].events, 2);
  const doc = a.run(['doctor']);
  assert.deepEqual(doc.json.team_conflicts, [{ session: id, file: kept.path, events: 2 }]);
  assert.ok(doc.json.problems.some((p: { message: string; fix: string }) => p.message.includes(kept.path) && p.fix === 'baton team status'));
  assert.equal(appendText(a, id, 'still mine?').json.error.code, 'WS105');
  verified(a, id);
  verified(b, id);
});

test('a tampered row is refused on pull with WS203; the local log is unchanged', () => {
  const {
    url,
    machines: [a, b],
  } = team('a', 'b');
  const db = url.slice(url.lastIndexOf('/') + 1);
  const id = newSession(a, 'tamper');
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  assert.equal(appendText(a, id, 'honest words').code, 0);
  assert.equal(appendText(a, id, 'more words').code, 0);
  a.ok(['sync']);
  pg.psql(`update baton.events set line = convert_to(replace(convert_from(line, 'UTF8'), 'honest', 'forged'), 'UTF8') where session = '${id}' and seq = 3`, db);
  const before = b.log(id);
  const r = b.run(['sync']);
  assert.equal(r.code, 2);
  assert.equal(r.json.refused[0].code, 'WS203');
  assert.match(r.json.refused[0].message, /at seq 3: chain hash mismatch/);
  assert.equal(b.log(id), before);
  verified(b, id);
  verified(a, id);
});

test('database down: the CLI is unaffected, sync fails with TM002 and later catches up', () => {
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'outage');
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  pg.stop();
  try {
    assert.equal(appendText(a, id, 'written while the database is down').code, 0);
    const r = a.run(['sync']);
    assert.equal(r.code, 2);
    assert.equal(r.json.error.code, 'TM002');
    const st = a.run(['team', 'status']);
    assert.equal(st.json.reachable, false);
  } finally {
    pg.start();
  }
  assert.equal(a.ok(['sync']).pushed[0].pushed, 1);
  b.ok(['sync']);
  assert.equal(a.log(id), b.log(id));
  verified(a, id);
  verified(b, id);
});

test('a hook on a replica writes nothing, exits 0 and says how to take the session over', () => {
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'hooked');
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  const before = treeHash(b.home);
  const payload = JSON.stringify({ session_id: id, cwd: b.home, hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
  const r = baton(['hook', 'claude'], { home: b.home, input: payload, env: { BATON_SESSION: id } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /WS105 session .* owned by a since .*nothing written/);
  assert.match(r.stdout, /BATON_TEAM_REPLICA/);
  assert.ok(r.stdout.includes(`baton team take ${id}`));
  assert.equal(treeHash(b.home), before);
  // The owner's hook still writes.
  const own = baton(['hook', 'claude'], { home: a.home, input: payload.replace(b.home, a.home), env: { BATON_SESSION: id } });
  assert.equal(own.code, 0, own.stderr);
  assert.ok(a.log(id).includes('"prompt.submitted"'));
  verified(a, id);
  verified(b, id);
});

/** Waits (bounded, not a timing assertion) until `check` holds. */
async function until(check: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('sync --watch on both machines propagates an append, and SIGTERM ends it cleanly', async () => {
  const { spawn } = await import('node:child_process');
  const { BIN } = await import('./helpers.ts');
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'watched');
  a.ok(['team', 'share', id]);
  const watchers = [a, b].map((m) => {
    const p = spawn(process.execPath, [BIN, 'sync', '--watch', '--json'], { env: { ...process.env, BATON_HOME: m.home, BATON_INSTANCE: `cli@${m.name}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    const done = new Promise<number | null>((r) => p.on('exit', (code) => r(code)));
    return { p, out: () => out, done };
  });
  try {
    await until(() => fs.existsSync(join(b.home, 'sessions', id, 'events.jsonl')), 'B replicates the shared session');
    assert.equal(appendText(a, id, 'travels by itself').code, 0);
    await until(() => b.log(id).includes('travels by itself'), 'the append reaches B');
    assert.equal(b.log(id), a.log(id));
  } finally {
    for (const w of watchers) w.p.kill('SIGTERM');
  }
  for (const w of watchers) {
    assert.equal(await w.done, 0);
    assert.match(w.out(), /"event":"stopped"/);
  }
  verified(a, id);
  verified(b, id);
});

test('a replicator killed (SIGKILL) mid-push: the rerun pushes every event exactly once', async () => {
  const { spawn } = await import('node:child_process');
  const { BIN } = await import('./helpers.ts');
  const { FsStore } = await import('../src/store/store.ts');
  const {
    url,
    machines: [a, b],
  } = team('a', 'b');
  const db = url.slice(url.lastIndexOf('/') + 1);
  const id = newSession(a, 'big push');
  // Many events, written in-process in batches (the CLI would take minutes).
  const store = new FsStore(a.home);
  const writer = { surface: 'cli', instanceId: 'cli@a', actor: 'user' as const };
  const body = 'x'.repeat(400);
  for (let i = 0; i < 30; i++) {
    store.append(
      id,
      Array.from({ length: 1000 }, (_, j) => ({ type: 'context.appended', surface: 'cli', actor: 'user' as const, payload: { text: `${i}.${j} ${body}` } })),
      writer,
    );
  }
  const total = store.view(id).scan.lastSeq;
  const p = spawn(process.execPath, [BIN, 'team', 'share', id, '--json'], { env: { ...process.env, BATON_HOME: a.home, BATON_INSTANCE: 'cli@a' }, stdio: 'ignore' });
  const exited = new Promise((r) => p.on('exit', r));
  // Kill it while its push transaction is open (it has inserted rows the others cannot see yet).
  let inFlight = false;
  await until(() => {
    inFlight = pg.psql("select count(*) from pg_stat_activity where application_name = 'baton' and xact_start is not null and query like '%baton.events%'", db).trim() !== '0';
    return inFlight || p.exitCode !== null;
  }, 'the push transaction opens');
  p.kill('SIGKILL');
  await exited;
  const seen = Number(pg.psql(`select count(*) from baton.events where session = '${id}'`, db).trim());
  assert.ok(seen === 0 || seen === total, `a push is all or nothing: ${seen} of ${total}`);
  // The rerun (sync as the owner) completes; every event is in the team's copy exactly once.
  a.ok(['sync']);
  const [count, distinct, max] = pg.psql(`select count(*), count(distinct seq), max(seq) from baton.events where session = '${id}'`, db).trim().split('|').map(Number);
  assert.deepEqual([count, distinct, max], [total, total, total]);
  b.ok(['sync']);
  assert.equal(b.log(id), a.log(id));
  verified(a, id);
  verified(b, id);
});

test('a replicator killed (SIGKILL) mid-pull: the rerun pulls the rest, every event exactly once', async () => {
  const { spawn } = await import('node:child_process');
  const { BIN } = await import('./helpers.ts');
  const { FsStore } = await import('../src/store/store.ts');
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'big pull');
  const store = new FsStore(a.home);
  const writer = { surface: 'cli', instanceId: 'cli@a', actor: 'user' as const };
  for (let i = 0; i < 30; i++) {
    store.append(
      id,
      Array.from({ length: 1000 }, (_, j) => ({ type: 'context.appended', surface: 'cli', actor: 'user' as const, payload: { text: `${i}.${j} ${'y'.repeat(300)}` } })),
      writer,
    );
  }
  a.ok(['team', 'share', id]);
  const total = store.view(id).scan.lastSeq;
  const p = spawn(process.execPath, [BIN, 'sync', '--json'], { env: { ...process.env, BATON_HOME: b.home, BATON_INSTANCE: 'cli@b' }, stdio: 'ignore' });
  const exited = new Promise((r) => p.on('exit', r));
  const bLog = join(b.home, 'sessions', id, 'events.jsonl');
  // Kill it once its first batches are in B's log.
  await until(() => (fs.statSync(bLog, { throwIfNoEntry: false })?.size ?? 0) > 0 || p.exitCode !== null, 'the pull starts');
  p.kill('SIGKILL');
  await exited;
  // Whatever B has is a verified prefix, save at most a torn last line: a SIGKILL can cut a
  // write short (store.md, torn tail). The rerun quarantines that line and completes the log.
  const after = b.run(['session', 'verify', id, '--json']);
  const report = JSON.parse(after.stdout);
  assert.equal(report.corrupt, null, after.stdout);
  assert.equal(after.code === 0, report.torn === null, after.stdout);
  b.ok(['sync']);
  if (report.torn) {
    const q = join(b.home, 'sessions', id, 'quarantine');
    const kept = fs.readdirSync(q).map((f) => fs.readFileSync(join(q, f)));
    assert.ok(kept.some((buf) => buf.length === report.torn.bytes), 'the torn line is kept in quarantine/');
  }
  assert.equal(b.log(id), a.log(id));
  assert.equal(b.log(id).trimEnd().split('\n').length, total);
  verified(a, id);
  verified(b, id);
});

test('a torn last line in a replica (a pull cut short) is quarantined by the next pull, which completes the log', () => {
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'torn replica');
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  for (const t of ['one', 'two', 'three']) assert.equal(appendText(a, id, t).code, 0);
  a.ok(['sync']);
  const bLog = join(b.home, 'sessions', id, 'events.jsonl');
  const next = a.log(id).slice(b.log(id).length).split('\n')[0];
  const torn = next.slice(0, Math.floor(next.length / 2));
  fs.appendFileSync(bLog, torn);
  b.ok(['sync']);
  assert.equal(b.log(id), a.log(id));
  const q = join(b.home, 'sessions', id, 'quarantine');
  assert.deepEqual(
    fs.readdirSync(q).map((f) => fs.readFileSync(join(q, f), 'utf8')),
    [torn],
  );
  verified(b, id);
});

test('baton serve runs the replicator: an append on A reaches a client subscribed on B; state in server.json; the database down and back', async () => {
  const { startServer, wsClient } = await import('./server-helpers.ts');
  const {
    machines: [a, b],
  } = team('a', 'b');
  const id = newSession(a, 'served');
  a.ok(['team', 'share', id]);
  const server = await startServer(b.home);
  const serverJson = () => JSON.parse(fs.readFileSync(join(b.home, 'server.json'), 'utf8'));
  const client = await wsClient(server, 'watcher');
  try {
    await until(() => serverJson().team?.state === 'connected', 'the server connects its replicator');
    assert.equal(serverJson().team.machine, 'b');
    assert.ok(!JSON.stringify(serverJson()).includes('password'));
    await until(() => fs.existsSync(join(b.home, 'sessions', id, 'events.jsonl')), "B's server pulls the shared session");
    const got: string[] = [];
    client.onEvent((n) => got.push(JSON.stringify(n.event)));
    await client.eventSubscribe({ threadId: id });
    assert.equal(appendText(a, id, 'seen by a client of B').code, 0);
    a.ok(['sync']);
    await until(() => got.some((e) => e.includes('seen by a client of B')), "the event reaches B's subscriber");
    assert.equal(b.log(id), a.log(id));
    // The database goes down: the server stays up, says so, and catches up once it is back.
    pg.stop();
    try {
      await until(() => serverJson().team?.state === 'unreachable', 'the server notices the database is down');
      assert.equal(serverJson().team.last_error.code, 'TM002');
      assert.equal(appendText(a, id, 'written during the outage').code, 0);
    } finally {
      pg.start();
    }
    a.ok(['sync']);
    await until(() => got.some((e) => e.includes('written during the outage')), 'B catches up after the outage');
    assert.equal(serverJson().team.state, 'connected');
    assert.ok(serverJson().team.pulled >= 2);
  } finally {
    client.close();
    assert.equal(await server.stop(), 0, server.stderr());
  }
  assert.ok(!fs.existsSync(join(b.home, 'server.json')));
  assert.match(server.stderr(), /team: replicating as b/);
  assert.equal(b.log(id), a.log(id));
  // --no-team: the same home, no replicator.
  const plain = await startServer(b.home, ['--no-team']);
  try {
    assert.equal(serverJson().team, undefined);
  } finally {
    assert.equal(await plain.stop(), 0);
  }
  assert.doesNotMatch(plain.stderr(), /team:/);
  verified(a, id);
  verified(b, id);
});
