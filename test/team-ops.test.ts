// Team mode's everyday verbs end to end (docs/team.md): `session resume` / `session release`
// on shared sessions, `team share|unshare --project`, `team resolve`, and the password from
// ~/.pgpass. A private PostgreSQL cluster (test/pg.ts), machines as BATON_HOMEs, the real
// binary; each test ends with every machine's log verified and every acknowledged text
// present exactly once (in the log or in conflicts/); each refusal leaves the disk unchanged.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BIN, baton, tmpDir, treeHash } from './helpers.ts';
import { type PgCluster, startPg } from './pg.ts';
import { type Machine, allAccounted, machine, note, team, until } from './team-machines.ts';

let pg: PgCluster;
before(async () => {
  pg = await startPg();
});
after(() => pg?.destroy());

/** The refusal a command gives, with the machine's whole home unchanged by it. */
function refused(m: Machine, args: string[], code: string, opts: { cwd?: string } = {}): any {
  const before = treeHash(m.home);
  const r = m.run(args, opts);
  assert.equal(r.code, 2, `${m.name}: baton ${args.join(' ')} should be refused: ${r.stdout}${r.stderr}`);
  assert.equal(r.json.error.code, code, r.stdout);
  assert.equal(treeHash(m.home), before, `${m.name}: baton ${args.join(' ')} changed the disk`);
  return r.json.error;
}

const types = (m: Machine, id: string) =>
  m
    .log(id)
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { seq: number; type: string; surface: string; payload: Record<string, any> });

test('session resume takes a shared session (never steals); session release pushes and gives ownership up', () => {
  const {
    db,
    machines: [a, b],
  } = team(pg, 'a', 'b');
  const acked: string[] = [];
  const id = a.ok(['session', 'new', 'hand over by resume']).id;
  acked.push(note(a, id, 'a starts'));
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  acked.push(note(a, id, 'a goes on, not pushed yet'));
  // Owned by a: resume on b is refused with WS105 naming a, before anything is pulled.
  const e = refused(b, ['session', 'resume', id], 'WS105');
  assert.match(e.message, /owned by a since/);
  assert.equal(e.owner, 'a');
  // A replica may not release either (not its lease, not its ownership).
  refused(b, ['session', 'release', id], 'WS105');
  // a releases: lease, then everything pushed and ownership given up in the same transaction.
  const rel = a.ok(['session', 'release', id]);
  assert.deepEqual(rel.team, { released: true, pushed: 2 });
  assert.equal(pg.psql(`select coalesce(owner, '-') || ' ' || last_seq from baton.sessions where id = '${id}'`, db).trim(), `- ${types(a, id).length}`);
  assert.equal(a.run(['session', 'append', id, '--text', 'after release']).json.error.code, 'WS105');
  // b resumes: takes it (epoch 2), pulls what a pushed, and holds the lease.
  const res = b.ok(['session', 'resume', id]);
  assert.deepEqual(res.team, { epoch: 2, previous_owner: null, pulled: 2 });
  assert.ok(res.context.includes('a goes on, not pushed yet'));
  acked.push(note(b, id, 'b writes now'));
  // b gives ownership up with its lease still open (team release), and a resumes: the lease
  // b held ends with lock.released ownership_moved, after the pull and before a's own lease.
  b.ok(['team', 'release', id]);
  const back = a.ok(['session', 'resume', id]);
  assert.equal(back.team.epoch, 3);
  const evs = types(a, id);
  const moved = evs.findIndex((x) => x.type === 'lock.released' && x.payload.reason === 'ownership_moved');
  const pulledLast = evs.findIndex((x) => x.payload.text === 'b writes now');
  assert.ok(moved > pulledLast && pulledLast > 0, 'ownership_moved comes after the pulled events');
  assert.equal(evs[moved + 1].type, 'lock.acquired');
  assert.equal(evs[moved + 2].type, 'session.resumed');
  acked.push(note(a, id, 'a again'));
  a.ok(['sync']);
  b.ok(['sync']);
  allAccounted([a, b], id, acked);
});

test('session release with the database down is refused (TM002) before the lease moves; it succeeds once the database is back', () => {
  const {
    machines: [a, b],
  } = team(pg, 'a', 'b');
  const id = a.ok(['session', 'new', 'release while down']).id;
  const acked = [note(a, id, 'before the outage')];
  a.ok(['team', 'share', id]);
  acked.push(note(a, id, 'written offline'));
  pg.stop();
  try {
    refused(a, ['session', 'release', id], 'TM002');
  } finally {
    pg.start();
  }
  assert.equal(a.ok(['session', 'show', id]).lease.holder.instance_id, 'cli@a', 'the lease is still held');
  assert.deepEqual(a.ok(['session', 'release', id]).team, { released: true, pushed: 2 });
  b.ok(['sync']);
  b.ok(['session', 'resume', id]);
  b.ok(['sync']);
  a.ok(['sync']);
  allAccounted([a, b], id, acked);
});

test('team share --project shares the project now and its new sessions at each sync; unshare --project stops that', () => {
  const {
    db,
    machines: [a, b],
  } = team(pg, 'a', 'b');
  const root = tmpDir('baton-proj-');
  const proj = join(root, 'app');
  const sub = join(proj, 'pkg');
  const elsewhere = join(root, 'other');
  for (const d of [sub, elsewhere]) fs.mkdirSync(d, { recursive: true });
  const s1 = a.ok(['session', 'new', 'in the project', '--cwd', proj]).id;
  const s2 = a.ok(['session', 'new', 'in a subfolder', '--cwd', sub]).id;
  const out = a.ok(['session', 'new', 'outside', '--cwd', elsewhere]).id;
  const acked = [note(a, s1, 'project note')];
  // Refusals first: nothing is recorded, nothing shared.
  refused(a, ['team', 'share', '--project', join(root, 'missing')], 'USAGE');
  refused(a, ['team', 'share', s1, '--project', proj], 'USAGE');
  refused(a, ['team', 'share'], 'USAGE');
  const r = a.ok(['team', 'share', '--project', proj]);
  assert.deepEqual(r.shared.map((x: { session: string }) => x.session).sort(), [s1, s2].sort());
  assert.equal(r.project, fs.realpathSync(proj));
  const cfg = JSON.parse(fs.readFileSync(join(a.home, 'team.json'), 'utf8'));
  assert.deepEqual(cfg.projects.map((p: { path: string }) => p.path), [fs.realpathSync(proj)]);
  assert.equal(fs.statSync(join(a.home, 'team.json')).mode & 0o777, 0o600);
  assert.ok(!pg.psql('select project || workspace from baton.sessions', db).includes(root), 'no local path in the database');
  // A session created later in the project is shared at the next sync; one outside is not.
  const s3 = a.ok(['session', 'new', 'created later', '--cwd', proj]).id;
  acked.push(note(a, s3, 'later note'));
  const sync = a.ok(['sync']);
  assert.deepEqual(sync.shared, [s3]);
  const ids = () => pg.psql('select id from baton.sessions', db).trim().split('\n').filter(Boolean).sort();
  assert.deepEqual(ids(), [s1, s2, s3].sort());
  assert.ok(!ids().includes(out));
  // Unsharing one session of the project sticks: the rule does not share it again.
  a.ok(['team', 'unshare', s2]);
  assert.deepEqual(a.ok(['sync']).shared, []);
  assert.ok(!ids().includes(s2));
  // Forgetting the rule keeps what is shared; new sessions stay private.
  assert.equal(a.ok(['team', 'unshare', '--project', proj]).removed, true);
  assert.equal(a.ok(['team', 'unshare', '--project', proj]).removed, false);
  const s4 = a.ok(['session', 'new', 'after the rule', '--cwd', proj]).id;
  assert.deepEqual(a.ok(['sync']).shared, []);
  assert.deepEqual(ids(), [s1, s3].sort());
  assert.ok(!ids().includes(s4));
  b.ok(['sync']);
  allAccounted([a, b], s1, [acked[0]]);
  allAccounted([a, b], s3, [acked[1]]);
});

test('sync --watch shares a session created in a shared project', async () => {
  const {
    db,
    machines: [a],
  } = team(pg, 'a');
  const proj = tmpDir('baton-proj-');
  a.ok(['team', 'share', '--project', proj]);
  const w = spawn(process.execPath, [BIN, 'sync', '--watch', '--json', '--interval', '100'], { env: { ...process.env, BATON_HOME: a.home, BATON_INSTANCE: 'cli@a' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  w.stdout.on('data', (d) => {
    out += d;
  });
  const done = new Promise<number | null>((r) => w.on('exit', (code) => r(code)));
  let id = '';
  try {
    await until(() => out.includes('"event":"connected"'), 'the watcher connects');
    id = a.ok(['session', 'new', 'made while watching', '--cwd', proj]).id;
    await until(() => pg.psql(`select count(*) from baton.sessions where id = '${id}'`, db).trim() === '1', 'the watcher shares it');
  } finally {
    w.kill('SIGTERM');
  }
  assert.equal(await done, 0);
  assert.match(out, new RegExp(`"shared":\\["${id}"\\]`));
  allAccounted([a], id, []);
});

test('team resolve re-appends a fork as notes by the new owner and moves the file to conflicts/resolved/', () => {
  const {
    machines: [a, b],
  } = team(pg, 'a', 'b');
  const id = a.ok(['session', 'new', 'forked']).id;
  const acked = [note(a, id, 'shared start')];
  a.ok(['team', 'share', id]);
  b.ok(['sync']);
  // a writes offline (a lease renewal among its notes); b steals, writes, syncs.
  const forked = [note(a, id, 'offline one'), note(a, id, 'offline "two"\nwith a newline')];
  a.ok(['session', 'renew', id]);
  acked.push(...forked);
  b.ok(['team', 'take', id, '--steal']);
  b.ok(['session', 'resume', id]);
  acked.push(note(b, id, 'b after the steal'));
  b.ok(['sync']);
  // a still believes it owns the session: its release is refused before its lease moves.
  assert.equal(refused(a, ['session', 'release', id], 'WS105').owner, 'b');
  assert.equal(a.ok(['sync']).pulled[0].conflict.events, 3);
  // Refusals on a, each leaving the disk unchanged: not the owner, then (once owner) bad arguments.
  const notOwner = refused(a, ['team', 'resolve', id, '--all'], 'WS105');
  assert.equal(notOwner.owner, 'b');
  b.ok(['session', 'release', id]);
  a.ok(['session', 'resume', id]);
  refused(a, ['team', 'resolve', id], 'USAGE');
  refused(a, ['team', 'resolve', id, '--conflict', '1-a.jsonl', '--all'], 'USAGE');
  const none = refused(a, ['team', 'resolve', id, '--conflict', '7-nobody.jsonl'], 'TM004');
  assert.deepEqual(none.conflicts, ['1-a.jsonl']);
  refused(a, ['team', 'resolve', id, '--conflict', '../events.jsonl'], 'TM004');
  const r = a.ok(['team', 'resolve', id, '--conflict', '1-a.jsonl']);
  assert.deepEqual(r.resolved, [{ file: 'conflicts/1-a.jsonl', moved_to: 'conflicts/resolved/1-a.jsonl', events: 3, appended: 2, already: 0, skipped: 1 }]);
  const dir = join(a.home, 'sessions', id, 'conflicts');
  assert.ok(!fs.existsSync(join(dir, '1-a.jsonl')));
  assert.equal(fs.readFileSync(join(dir, 'resolved', '1-a.jsonl'), 'utf8').trimEnd().split('\n').length, 3, 'nothing deleted');
  const notes = types(a, id).filter((e) => e.type === 'context.appended' && e.payload.tags?.includes('team.conflict'));
  assert.equal(notes.length, 2);
  for (const [i, n] of notes.entries()) {
    assert.ok(n.payload.text.endsWith(`\n\n${forked[i]}`));
    assert.match(n.payload.text, /^Re-appended from conflicts\/1-a\.jsonl: event seq \d+ \(context\.appended, .* h [0-9a-f]{32}\) written on a at epoch 1/);
    assert.ok(n.payload.tags.includes('conflict:1-a.jsonl'));
    assert.ok(n.payload.tags.some((t: string) => /^h:[0-9a-f]{32}$/.test(t)));
  }
  // No conflict left: status is clean, doctor too, and resolving again is refused.
  assert.equal(a.run(['team', 'status']).code, 0);
  assert.deepEqual(a.ok(['doctor']).team_conflicts, []);
  refused(a, ['team', 'resolve', id, '--all'], 'TM004');
  // A run cut short after its notes (the file not moved yet) appends nothing twice.
  fs.copyFileSync(join(dir, 'resolved', '1-a.jsonl'), join(dir, '1-a.jsonl'));
  const again = a.ok(['team', 'resolve', id, '--all']);
  assert.deepEqual(again.resolved[0], { file: 'conflicts/1-a.jsonl', moved_to: 'conflicts/resolved/1-a.2.jsonl', events: 3, appended: 0, already: 2, skipped: 1 });
  a.ok(['sync']);
  b.ok(['sync']);
  assert.equal(types(b, id).filter((e) => e.payload.tags?.includes('team.conflict')).length, 2);
  // The originals are once in a's resolved files (the second copy is the simulated crash's).
  fs.rmSync(join(dir, 'resolved', '1-a.2.jsonl'));
  allAccounted([a, b], id, acked);
});

test('the password may live only in ~/.pgpass or PGPASSFILE (0600), never printed', () => {
  const db = 'pgpass1';
  pg.psql(`create database ${db}`);
  pg.psql(`do $$ begin if not exists (select from pg_roles where rolname = 'bob') then create role bob login password 'p:w\\x'; end if; end $$`);
  pg.psql(`grant all on database ${db} to bob`);
  pg.psql('grant all on schema public to bob', db);
  pg.requirePassword('bob');
  const url = `postgres://bob@127.0.0.1:${pg.port}/${db}`;
  const a = machine('a');
  const dot = tmpDir('baton-pgpass-');
  const file = join(dot, '.pgpass');
  const noPw = { PGPASSWORD: undefined, PGPASSFILE: undefined, HOME: dot };
  // No password anywhere: refused, nothing written.
  const before = treeHash(a.home);
  const none = a.run(['team', 'join', url, '--name', 'a'], { env: noPw });
  assert.equal(none.code, 2, none.stdout + none.stderr);
  assert.equal(none.json.error.code, 'TM002');
  assert.equal(treeHash(a.home), before);
  // A file others may read is ignored (as libpq does), with a warning that never shows the password.
  fs.writeFileSync(file, `# team\nother:*:*:*:nope\n127.0.0.1:${pg.port}:${db}:bob:p\\:w\\\\x\n`, { mode: 0o644 });
  fs.chmodSync(file, 0o644);
  const loose = a.run(['team', 'join', url, '--name', 'a'], { env: noPw });
  assert.equal(loose.json.error.code, 'TM002');
  assert.match(loose.stderr, /\.pgpass has group or world access \(mode 644\)/);
  assert.equal(treeHash(a.home), before);
  // 0600: ~/.pgpass is read (escaped `:` and `\`), the password never printed nor kept.
  fs.chmodSync(file, 0o600);
  const ok = a.run(['team', 'join', url, '--name', 'a'], { env: noPw });
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  for (const text of [ok.stdout, ok.stderr, fs.readFileSync(join(a.home, 'team.json'), 'utf8')]) assert.ok(!text.includes('p:w'), 'the password is never printed or stored');
  const id = a.ok(['session', 'new', 'over pgpass']).id;
  const acked = [note(a, id, 'sent with a password from the file')];
  assert.equal(a.run(['team', 'share', id], { env: noPw }).code, 0);
  // PGPASSFILE names another file (a wildcard line); ~/.pgpass is then not read.
  const other = join(dot, 'team.pgpass');
  fs.writeFileSync(other, `*:*:*:bob:p\\:w\\\\x\n`, { mode: 0o600 });
  fs.writeFileSync(file, `*:*:*:bob:wrong\n`, { mode: 0o600 });
  const b = machine('b');
  const viaEnv = b.run(['team', 'join', url, '--name', 'b'], { env: { ...noPw, PGPASSFILE: other } });
  assert.equal(viaEnv.code, 0, viaEnv.stdout + viaEnv.stderr);
  const st = b.run(['team', 'status'], { env: { ...noPw, PGPASSFILE: other } });
  assert.equal(st.json.reachable, true);
  assert.ok(!st.stdout.includes('p:w'));
  assert.equal(b.run(['sync'], { env: { ...noPw, PGPASSFILE: other } }).code, 0);
  const wrong = b.run(['sync'], { env: noPw });
  assert.equal(wrong.json.error.code, 'TM002');
  assert.ok(!wrong.stdout.includes('wrong') && !wrong.stderr.includes('wrong'), 'not even a wrong password is printed');
  allAccounted([a, b], id, acked);
});

test('doctor asks the team database (read-only): events owned here and not pushed are counted; an unreachable database is a problem naming them, never healthy', () => {
  const {
    db,
    machines: [a],
  } = team(pg, 'a');
  const id = a.ok(['session', 'new', 'doctor and the team']).id;
  a.ok(['team', 'share', id]);
  a.ok(['sync']);
  const synced = a.run(['doctor']);
  assert.equal(synced.json.team.reachable, true, synced.stdout);
  assert.equal(synced.json.team.to_push, 0);
  assert.equal(synced.json.team.owned_here, 1);
  assert.ok(!synced.json.problems.some((p: any) => /team/.test(p.message)), synced.stdout);
  const rows = pg.psql('select count(*) from baton.machines', db);
  note(a, id, 'written, not pushed');
  // Reachable, one event to push: normal between syncs, said on the team line, not a problem.
  const behind = a.run(['doctor']);
  assert.equal(behind.code, 0, behind.stdout);
  assert.equal(behind.json.team.to_push, 1, behind.stdout);
  assert.match(baton(['doctor'], { home: a.home, env: a.env }).stdout, /team {7}a · .* · reachable, 1 to push, 0 to pull/);
  assert.equal(pg.psql('select count(*) from baton.machines', db), rows, 'doctor wrote nothing to the database');
  pg.stop();
  try {
    const before = treeHash(a.home);
    const down = a.run(['doctor']);
    assert.equal(down.code, 2, down.stdout);
    assert.equal(down.json.team.reachable, false);
    const p = down.json.problems.find((x: any) => /team database .* is unreachable/.test(x.message));
    assert.ok(p, down.stdout);
    assert.match(p.message, /1 shared session\(s\) owned here cannot push/);
    assert.match(p.fix, /baton team status/);
    assert.doesNotMatch(down.stdout, /healthy/);
    assert.equal(treeHash(a.home), before, 'doctor changed the home');
    const text = baton(['doctor'], { home: a.home, env: a.env });
    assert.match(text.stdout, /team {7}a · .* · unreachable/);
  } finally {
    pg.start();
  }
  a.ok(['sync']);
  assert.equal(a.run(['doctor']).json.team.to_push, 0);
});
