// The session commands as a user runs them: the real binary, a temporary BATON_HOME.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const ME = { BATON_INSTANCE: 'tester' };

function setup(id = 's1', extra: string[] = []): { home: string; cwd: string } {
  const home = tmpDir();
  const cwd = tmpDir('baton-ws-');
  const r = baton(['session', 'new', 'A session', '--id', id, '--cwd', cwd, ...extra], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  return { home, cwd };
}

test('bad explicit ids are refused with WS003 and create nothing anywhere', () => {
  const parent = tmpDir();
  const home = join(parent, 'store');
  for (const id of ['../x', 'a/b', 'a\\b', '.hidden', 'x'.repeat(129), '', 'has space']) {
    const r = baton(['session', 'new', 'T', '--id', id, '--json'], { home });
    assert.equal(r.code, 2, `id ${JSON.stringify(id)}`);
    assert.equal(r.json?.error?.code, 'WS003', `id ${JSON.stringify(id)}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /^baton: WS003 /);
  }
  assert.deepEqual(fs.readdirSync(parent), [], 'no store folder was created');
});

test('an id with a NUL byte (it cannot come through argv; hooks carry ids in JSON) is WS003 and creates nothing', async () => {
  const { FsStore } = await import('../src/store/store.ts');
  const parent = tmpDir();
  const store = new FsStore(join(parent, 'store'));
  const writer = { surface: 'cli', instanceId: 't', actor: 'user' as const };
  assert.throws(() => store.create({ title: 'T', id: 'a\u0000b', workspace: { cwd: parent }, writer }), { code: 'WS003' });
  assert.throws(() => store.ensure('a\u0000b', { title: 'T', workspace: { cwd: parent }, writer }), { code: 'WS003' });
  assert.deepEqual(fs.readdirSync(parent), []);
});

test('an explicit id that exists is WS004, never reused', () => {
  const { home } = setup('dup');
  const before = treeHash(home);
  const r = baton(['session', 'new', 'Again', '--id', 'dup', '--json'], { home, env: ME });
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'WS004');
  assert.equal(treeHash(home), before);
});

test('generated ids are <slug>-<base36 ms> and never collide', () => {
  const home = tmpDir();
  const ids = new Set<string>();
  for (let i = 0; i < 4; i++) {
    const r = baton(['session', 'new', 'Annotate the Laozi: Ch. 1!'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.trim(), /^annotate-the-laozi-ch-1-[0-9a-z]+(-[0-9a-z]{4})?$/);
    ids.add(r.stdout.trim());
  }
  assert.equal(ids.size, 4);
});

test('new writes session.created and lock.acquired with the workspace origin; files are private', () => {
  const { home, cwd } = setup('w1');
  const dir = join(home, 'sessions', 'w1');
  const events = readJsonl(join(dir, 'events.jsonl'));
  assert.deepEqual(events.map((e) => e.type), ['session.created', 'lock.acquired']);
  assert.equal(events[0].payload.workspace.cwd, cwd);
  assert.deepEqual(Object.keys(events[0]), ['seq', 'ts', 'type', 'surface', 'actor', 'payload', 'h']);
  assert.match(events[0].ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  for (const f of fs.readdirSync(dir)) {
    const st = fs.statSync(join(dir, f));
    if (st.isFile()) assert.equal(st.mode & 0o777, 0o600, f);
  }
  const lock = JSON.parse(fs.readFileSync(join(dir, 'lock.json'), 'utf8'));
  assert.equal(lock.holder.instance_id, 'tester');
  const m = JSON.parse(fs.readFileSync(join(dir, 'manifest.json'), 'utf8'));
  assert.equal(m.schema, 'baton-session-1');
  assert.equal(m.status.state, 'active');
  assert.equal(m.status.last_event_seq, 2);
});

test('append needs the lease: WS100 without one, WS101 when another holds it; refusals change nothing', () => {
  const { home } = setup('lease');
  const other = baton(['session', 'append', 'lease', '--text', 'x', '--json'], { home, env: { BATON_INSTANCE: 'someone-else' } });
  assert.equal(other.code, 2);
  assert.equal(other.json.error.code, 'WS101');
  assert.equal(baton(['session', 'release', 'lease'], { home, env: ME }).code, 0);
  const before = treeHash(home);
  const none = baton(['session', 'append', 'lease', '--text', 'x', '--json'], { home, env: ME });
  assert.equal(none.code, 2);
  assert.equal(none.json.error.code, 'WS100');
  assert.match(none.stderr, /baton session resume lease/);
  assert.equal(treeHash(home), before);
});

test('custom event types must start with x. (WS204)', () => {
  const { home } = setup('types');
  const before = treeHash(home);
  const r = baton(['session', 'append', 'types', '--text', 'x', '--type', 'mine.thing', '--json'], { home, env: ME });
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'WS204');
  assert.equal(treeHash(home), before);
  assert.equal(baton(['session', 'append', 'types', '--text', 'x', '--type', 'x.mine'], { home, env: ME }).code, 0);
});

test('a surface outside the allowed runtimes is refused with WS302', () => {
  const { home } = setup('allow', ['--allow', 'web']);
  const before = treeHash(home);
  const r = baton(['session', 'append', 'allow', '--text', 'x', '--json'], { home, env: ME });
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'WS302');
  assert.deepEqual(r.json.error.allowed_runtimes, ['web']);
  assert.equal(treeHash(home), before);
});

test('an AWS key and a PEM private key in a payload never reach the disk', () => {
  const { home } = setup('secrets');
  const aws = 'AKIAIOSFODNN7EXAMPLE';
  const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n-----END RSA PRIVATE KEY-----';
  const r = baton(['session', 'append', 'secrets', '--stdin'], { home, env: ME, input: `deploy with ${aws} and\n${pem}\npassword=hunter22` });
  assert.equal(r.code, 0, r.stderr);
  const all: string[] = [];
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d)) {
      const p = join(d, n);
      if (fs.statSync(p).isDirectory()) walk(p);
      else all.push(fs.readFileSync(p, 'utf8'));
    }
  };
  walk(home);
  const disk = all.join('\n');
  assert.ok(!disk.includes(aws));
  assert.ok(!disk.includes('MIIEowIBAAKCAQEA'));
  assert.ok(!disk.includes('hunter22'));
  assert.ok(disk.includes('<redacted>'));
});

test('resume takes the lease, records session.resumed with a validated workspace override, and prints the context', () => {
  const { home, cwd } = setup('res');
  assert.equal(baton(['session', 'append', 'res', '--text', 'remember the milk'], { home, env: ME }).code, 0);
  assert.equal(baton(['session', 'release', 'res'], { home, env: ME }).code, 0);
  const before = treeHash(home);
  const bad = baton(['session', 'resume', 'res', '--workspace', '/does/not/exist', '--json'], { home, env: ME });
  assert.equal(bad.code, 2);
  assert.equal(treeHash(home), before);
  const other = tmpDir('baton-other-');
  const r = baton(['session', 'resume', 're', '--workspace', other], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /remember the milk/);
  const events = readJsonl(join(home, 'sessions', 'res', 'events.jsonl'));
  const resumed = events.find((e) => e.type === 'session.resumed');
  assert.equal(resumed.payload.workspace_override, other);
  assert.equal(resumed.payload.from_seq, 4);
  assert.equal(events[0].payload.workspace.cwd, cwd, 'the origin is never rewritten');
});

test('an ambiguous prefix is refused with the candidates (WS001); an unknown id names the nearest', () => {
  const home = tmpDir();
  for (const id of ['alpha-1', 'alpha-2']) assert.equal(baton(['session', 'new', 'T', '--id', id], { home }).code, 0);
  const amb = baton(['session', 'show', 'alpha', '--json'], { home });
  assert.equal(amb.code, 2);
  assert.equal(amb.json.error.code, 'WS001');
  assert.deepEqual(amb.json.error.candidates, ['alpha-1', 'alpha-2']);
  const missing = baton(['session', 'show', 'alphx-1', '--json'], { home });
  assert.equal(missing.json.error.code, 'WS001');
  assert.ok(missing.json.error.nearest.includes('alpha-1'));
});

test('archive needs the lease released, writes the retrospective, copies out, and freezes the session', () => {
  const { home } = setup('arc');
  baton(['session', 'append', 'arc', '--text', 'Decided: use JSONL'], { home, env: ME });
  const held = baton(['session', 'archive', 'arc', '--json'], { home, env: ME });
  assert.equal(held.json.error.code, 'WS101');
  baton(['session', 'release', 'arc'], { home, env: ME });
  const target = join(tmpDir(), 'exists');
  fs.mkdirSync(target);
  const before = treeHash(home);
  const exists = baton(['session', 'archive', 'arc', '--to', target, '--json'], { home, env: ME });
  assert.equal(exists.json.error.code, 'WS401');
  assert.equal(treeHash(home), before);
  const out = join(tmpDir(), 'copy');
  const r = baton(['session', 'archive', 'arc', '--to', out, '--json'], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  const retro = fs.readFileSync(join(home, 'sessions', 'arc', 'retrospective.md'), 'utf8');
  assert.match(retro, /Decided: use JSONL/);
  assert.ok(fs.existsSync(join(out, 'events.jsonl')));
  assert.ok(fs.existsSync(join(out, 'retrospective.md')));
  const frozen = treeHash(home);
  const w = baton(['session', 'append', 'arc', '--text', 'late', '--json'], { home, env: ME });
  assert.equal(w.json.error.code, 'WS002');
  const res = baton(['session', 'resume', 'arc', '--json'], { home, env: ME });
  assert.equal(res.json.error.code, 'WS002');
  assert.equal(treeHash(home), frozen);
});

test('artifacts are copied in with their sha256 and removed by name', () => {
  const { home } = setup('art');
  const f = join(tmpDir(), 'notes.txt');
  fs.writeFileSync(f, 'v1');
  assert.equal(baton(['session', 'artifact', 'add', 'art', f], { home, env: ME }).code, 0);
  fs.writeFileSync(f, 'v2');
  assert.equal(baton(['session', 'artifact', 'add', 'art', f], { home, env: ME }).code, 0);
  assert.equal(fs.readFileSync(join(home, 'sessions', 'art', 'artifacts', 'notes.txt'), 'utf8'), 'v2');
  assert.equal(baton(['session', 'artifact', 'rm', 'art', 'notes.txt'], { home, env: ME }).code, 0);
  assert.ok(!fs.existsSync(join(home, 'sessions', 'art', 'artifacts', 'notes.txt')));
  const types = readJsonl(join(home, 'sessions', 'art', 'events.jsonl')).map((e) => e.type);
  assert.deepEqual(types.slice(2), ['artifact.added', 'artifact.updated', 'artifact.removed']);
  const upd = readJsonl(join(home, 'sessions', 'art', 'events.jsonl'))[3];
  assert.ok(upd.payload.sha256_old && upd.payload.sha256_new);
});

test('log filters by type, since and tail, and --follow streams what other processes append', async () => {
  const { home } = setup('lg');
  for (const t of ['a', 'b', 'c']) baton(['session', 'append', 'lg', '--text', t], { home, env: ME });
  const tail = baton(['session', 'log', 'lg', '--tail', '2', '--json'], { home });
  assert.deepEqual(tail.json.events.map((e: { seq: number }) => e.seq), [4, 5]);
  const typed = baton(['session', 'log', 'lg', '--type', 'context.appended', '--since', '3', '--json'], { home });
  assert.deepEqual(typed.json.events.map((e: { payload: { text: string } }) => e.payload.text), ['b', 'c']);
  const { spawn } = await import('node:child_process');
  const { BIN } = await import('./helpers.ts');
  const f = spawn(process.execPath, [BIN, 'session', 'log', 'lg', '--follow', '--json', '--since', '5'], { env: { ...process.env, BATON_HOME: home } });
  let out = '';
  f.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  await new Promise((r) => setTimeout(r, 700));
  baton(['session', 'append', 'lg', '--text', 'live one'], { home, env: ME });
  const t0 = Date.now();
  while (!out.includes('live one') && Date.now() - t0 < 15_000) await new Promise((r) => setTimeout(r, 50));
  f.kill();
  assert.match(out, /live one/);
  assert.equal(JSON.parse(out.trim().split('\n')[0]).seq, 6);
});

test('redact hides past matches in every presentation while the raw log keeps them', () => {
  const { home } = setup('red');
  baton(['session', 'append', 'red', '--text', 'the codename is BLUEBIRD'], { home, env: ME });
  const r = baton(['session', 'redact', 'red', '--pattern', 'BLUE\\w+', '--json'], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json.redacted_seqs, [3]);
  const log = baton(['session', 'log', 'red', '--json'], { home });
  assert.ok(!log.stdout.includes('BLUEBIRD'));
  assert.ok(!fs.readFileSync(join(home, 'sessions', 'red', 'context.md'), 'utf8').includes('BLUEBIRD'));
  assert.ok(fs.readFileSync(join(home, 'sessions', 'red', 'events.jsonl'), 'utf8').includes('BLUEBIRD'));
});

test('prune lists suspended sessions untouched for a duration and deletes them only with --apply', async () => {
  const { home } = setup('old');
  baton(['session', 'release', 'old'], { home, env: ME });
  baton(['session', 'new', 'Held', '--id', 'held'], { home, env: ME });
  await new Promise((r) => setTimeout(r, 1100));
  const dry = baton(['session', 'prune', '--older-than', '1s', '--json'], { home });
  assert.deepEqual(dry.json.sessions.map((s: { id: string }) => s.id), ['old']);
  assert.ok(fs.existsSync(join(home, 'sessions', 'old')));
  const apply = baton(['session', 'prune', '--older-than', '1s', '--apply', '--json'], { home });
  assert.equal(apply.json.sessions[0].deleted, true);
  assert.ok(!fs.existsSync(join(home, 'sessions', 'old')));
  assert.ok(fs.existsSync(join(home, 'sessions', 'held')));
});

test('show rebuilds a projection that is behind the log: the lag is in --json (WS202), not a warning on stderr', () => {
  const { home } = setup('proj');
  const dir = join(home, 'sessions', 'proj');
  const behind = () => {
    const m = JSON.parse(fs.readFileSync(join(dir, 'manifest.json'), 'utf8'));
    m.status.last_event_seq = 1;
    fs.writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
  };
  behind();
  const doc = baton(['doctor', '--json'], { home, env: { HOME: tmpDir() } });
  assert.deepEqual(doc.json.projections_behind.map((p: { session: string; manifest_seq: number }) => [p.session, p.manifest_seq]), [['proj', 1]]);
  const r = baton(['session', 'show', 'proj'], { home });
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
  assert.equal(JSON.parse(fs.readFileSync(join(dir, 'manifest.json'), 'utf8')).status.last_event_seq, 2);
  behind();
  const j = baton(['session', 'show', 'proj', '--json'], { home });
  assert.equal(j.stderr, '');
  assert.deepEqual({ code: j.json.projections_behind.code, manifest_seq: j.json.projections_behind.manifest_seq, last_seq: j.json.projections_behind.last_seq }, { code: 'WS202', manifest_seq: 1, last_seq: 2 });
  assert.equal(baton(['session', 'show', 'proj', '--json'], { home }).json.projections_behind, null, 'fresh now');
});

test('after ordinary hook traffic, session show prints nothing on stderr', () => {
  const home = tmpDir();
  const cwd = tmpDir('baton-ws-');
  const sid = 'b85c5c48-0000-4000-8000-000000000001';
  const send = (payload: Record<string, unknown>) => {
    const r = baton(['hook', 'claude'], { home, cwd, input: JSON.stringify({ session_id: sid, transcript_path: '/dev/null', cwd, ...payload }) });
    assert.equal(r.code, 0, r.stderr);
  };
  send({ hook_event_name: 'SessionStart', source: 'startup' });
  send({ hook_event_name: 'UserPromptSubmit', prompt: 'first prompt' });
  send({ hook_event_name: 'UserPromptSubmit', prompt: 'second prompt' });
  const list = baton(['session', 'list', '--json'], { home, cwd });
  assert.equal(list.json.sessions.length, 1);
  const r = baton(['session', 'show', list.json.sessions[0].id], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
});

test('session show lists the artifacts', () => {
  const { home, cwd } = setup('art');
  const f = join(cwd, 'notes.txt');
  fs.writeFileSync(f, 'hello');
  assert.equal(baton(['session', 'artifact', 'add', 'art', f], { home, env: ME }).code, 0);
  const r = baton(['session', 'show', 'art'], { home });
  assert.match(r.stdout, /^artifacts {2}notes\.txt \(2cf24dba, seq 3\)$/m);
  const j = baton(['session', 'show', 'art', '--json'], { home });
  assert.deepEqual(j.json.artifacts, [{ name: 'notes.txt', sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824', seq: 3 }]);
  assert.equal(baton(['session', 'artifact', 'rm', 'art', 'notes.txt'], { home, env: ME }).code, 0);
  assert.match(baton(['session', 'show', 'art'], { home }).stdout, /^artifacts {2}none$/m);
});

test('the store root comes from --home, else BATON_HOME, else XDG_STATE_HOME/baton', () => {
  const xdg = tmpDir();
  const r = baton(['session', 'new', 'X', '--id', 'xdg'], { env: { BATON_HOME: undefined, XDG_STATE_HOME: xdg } });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(join(xdg, 'baton', 'sessions', 'xdg', 'events.jsonl')));
  const flag = tmpDir();
  assert.equal(baton(['--home', flag, 'session', 'new', 'Y', '--id', 'y'], { env: { BATON_HOME: xdg } }).code, 0);
  assert.ok(fs.existsSync(join(flag, 'sessions', 'y')));
});

test('list filters by exact workspace: /a/b is not listed for /a or /a/bc', () => {
  const home = tmpDir();
  const a = tmpDir('baton-a-');
  fs.mkdirSync(join(a, 'b'));
  fs.mkdirSync(join(a, 'bc'));
  baton(['session', 'new', 'In b', '--id', 'inb', '--cwd', join(a, 'b')], { home });
  const ids = (cwd: string): string[] => baton(['session', 'list', '--json'], { home, cwd }).json.sessions.map((s: { id: string }) => s.id);
  assert.deepEqual(ids(join(a, 'b')), ['inb']);
  assert.deepEqual(ids(a), []);
  assert.deepEqual(ids(join(a, 'bc')), []);
  assert.deepEqual(baton(['session', 'list', '--all', '--json'], { home }).json.sessions.map((s: { id: string }) => s.id), ['inb']);
});
