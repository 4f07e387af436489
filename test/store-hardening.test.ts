// The store's hardening (issue 11): a corrupt last line is not a torn tail, a failed append
// leaves nothing, no write follows a link planted in the store, a home baton did not make is
// refused, dangling links and stale temp files are handled, and errno failures come out as
// codes. Black-box through the real binary; every refusal also checks the disk.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BIN, baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const CLI = { BATON_INSTANCE: 'test-hardening' };

/** Temporary folders of this file, removed when it ends (rm removes planted links, never their targets). */
const made: string[] = [];
function temp(prefix?: string): string {
  const d = tmpDir(prefix);
  made.push(d);
  return d;
}
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

function newSession(home: string, id: string): string {
  const r = baton(['session', 'new', 'Hardening', '--id', id, '--lease', '2h'], { home, env: CLI });
  assert.equal(r.code, 0, r.stderr);
  return join(home, 'sessions', id);
}

function append(home: string, id: string, text: string) {
  return baton(['session', 'append', id, '--text', text], { home, env: CLI });
}

test('a complete last line whose chain hash does not match is corruption (WS201), not a torn tail: nothing is quarantined, appends are refused', () => {
  const home = temp();
  const dir = newSession(home, 'lastbad');
  for (const t of ['one', 'two', 'three']) assert.equal(append(home, 'lastbad', t).code, 0);
  const log = join(dir, 'events.jsonl');
  const text = fs.readFileSync(log, 'utf8');
  // One letter of the last line's text changed: the line still parses, its `h` no longer matches.
  const at = text.lastIndexOf('"three"') + 2;
  fs.writeFileSync(log, `${text.slice(0, at)}T${text.slice(at + 1)}`);
  const lines = text.split('\n').filter(Boolean).length;
  const v = baton(['session', 'verify', 'lastbad', '--json'], { home });
  assert.equal(v.code, 2);
  assert.equal(v.json.torn, null);
  assert.equal(v.json.corrupt.line, lines);
  assert.match(v.json.corrupt.reason, /chain hash mismatch/);
  const before = treeHash(home);
  const a = append(home, 'lastbad', 'four');
  assert.equal(a.code, 2);
  assert.match(a.stderr, /WS201/);
  assert.equal(treeHash(home), before, 'the refused append changed nothing');
  assert.equal(fs.existsSync(join(dir, 'quarantine')), false);
  const r = baton(['session', 'repair', 'lastbad', '--json'], { home });
  assert.equal(fs.existsSync(join(dir, 'quarantine')), false, 'repair does not drop the line either');
  assert.equal(r.json?.quarantined ?? null, null);
  assert.equal(readJsonl(log).length, lines);
});

test('a complete last line that repeats the previous seq is corruption too, not a torn tail', () => {
  const home = temp();
  const dir = newSession(home, 'dupseq');
  assert.equal(append(home, 'dupseq', 'one').code, 0);
  const log = join(dir, 'events.jsonl');
  const lines = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
  fs.appendFileSync(log, `${lines[lines.length - 1]}\n`);
  const before = treeHash(home);
  const a = append(home, 'dupseq', 'two');
  assert.equal(a.code, 2);
  assert.match(a.stderr, /WS201/);
  assert.equal(treeHash(home), before);
});

/** `baton ARGS` under a file size limit of `blocks` × 512 bytes (RLIMIT_FSIZE binds root too). */
function batonLimited(home: string, blocks: number, args: string[]) {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('sh', ['-c', `ulimit -f ${blocks}; exec "${process.execPath}" "${BIN}" ${quoted}`], {
    encoding: 'utf8',
    env: { ...process.env, ...CLI, BATON_HOME: home, NO_COLOR: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('an append cut short by the file size limit (EFBIG) leaves the log as it was: WS206, exit 2, and retries leave no quarantine file', () => {
  const home = temp();
  const dir = newSession(home, 'fsize');
  assert.equal(append(home, 'fsize', 'before the limit').code, 0);
  const log = join(dir, 'events.jsonl');
  const bytes = fs.readFileSync(log);
  // The limit falls inside the new line: the write is partial, then EFBIG.
  const blocks = Math.ceil((bytes.length + 64) / 512);
  const before = treeHash(home);
  for (let i = 0; i < 3; i++) {
    const r = batonLimited(home, blocks, ['session', 'append', 'fsize', '--text', 'x'.repeat(2000)]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^baton: WS206 /m);
    assert.deepEqual(fs.readFileSync(log), bytes, 'no part of the failed line stays');
    assert.equal(fs.existsSync(join(dir, 'quarantine')), false, 'nothing was torn, nothing quarantined');
    assert.equal(treeHash(home), before);
  }
  const ok = append(home, 'fsize', 'after the limit');
  assert.equal(ok.code, 0, ok.stderr);
  const events = readJsonl(log);
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
  assert.equal(events.at(-1).payload.text, 'after the limit');
  assert.equal(baton(['session', 'verify', 'fsize'], { home }).code, 0);
});

/** A 1 MiB tmpfs (a disk to fill or make read-only), or null where mounting is not allowed (not root, no tmpfs). */
function smallDisk(): { dir: string; done: () => void } | null {
  const dir = tmpDir('baton-disk-');
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    done: () => {
      spawnSync('umount', [dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const canMount = ((): boolean => {
  const d = smallDisk();
  d?.done();
  return d !== null;
})();
const NO_MOUNT = canMount ? false : 'cannot mount a tmpfs here';

/** A small disk for this test, unmounted after it; null only where NO_MOUNT skips the test. */
function diskFor(t: { after: (fn: () => void) => void }): string | null {
  const disk = smallDisk();
  if (disk) t.after(disk.done);
  return disk?.dir ?? null;
}

test('an append on a full disk (ENOSPC) changes nothing: WS206, exit 2, no partial line, no empty quarantine file on retries', { skip: NO_MOUNT }, (t) => {
  const disk = diskFor(t);
  if (!disk) return;
  const home = join(disk, 'store');
  const dir = newSession(home, 'full');
  assert.equal(append(home, 'full', 'before the disk filled').code, 0);
  // Fill the disk: one filler file takes every free page.
  const filler = fs.openSync(join(disk, 'filler'), 'w');
  const page = Buffer.alloc(4096, 0x61);
  try {
    for (;;) if (fs.writeSync(filler, page) < page.length) break;
  } catch (e) {
    assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  fs.closeSync(filler);
  // Two pages back: enough for the mutex token, not for the line.
  fs.truncateSync(join(disk, 'filler'), fs.statSync(join(disk, 'filler')).size - 2 * 4096);
  const log = join(dir, 'events.jsonl');
  const bytes = fs.readFileSync(log);
  const before = treeHash(home);
  for (let i = 0; i < 3; i++) {
    const r = append(home, 'full', 'y'.repeat(40_000));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^baton: WS206 /m);
    assert.deepEqual(fs.readFileSync(log), bytes);
    assert.equal(fs.existsSync(join(dir, 'quarantine')), false);
    assert.equal(treeHash(home), before);
  }
  fs.rmSync(join(disk, 'filler'));
  const after = append(home, 'full', 'after');
  assert.equal(after.code, 0, after.stderr);
  assert.equal(baton(['session', 'verify', 'full'], { home }).code, 0);
});

test('a code cache never takes a small disk’s room: on a 1 MiB disk a command that succeeds writes none, and appends go on; on a roomy disk it does', { skip: NO_MOUNT }, (t) => {
  const disk = diskFor(t);
  if (!disk) return;
  const cacheFiles = (home: string): string[] => (fs.existsSync(join(home, 'cache')) ? fs.readdirSync(join(home, 'cache')) : []);
  const home = join(disk, 'store');
  newSession(home, 'small');
  for (let i = 0; i < 5; i++) {
    const r = append(home, 'small', `line ${i}`);
    assert.equal(r.code, 0, r.stderr);
  }
  assert.deepEqual(cacheFiles(home), [], 'no cache on a disk that would keep less than 64 MiB free');
  // The same commands in a home on the system's temp disk (far more room) keep one.
  const roomy = join(temp(), 'store');
  newSession(roomy, 'big');
  assert.equal(append(roomy, 'big', 'line').code, 0);
  assert.ok(cacheFiles(roomy).some((n) => n.startsWith('cli-')), `a cache where there is room: ${cacheFiles(roomy)}`);
});

// --- links planted in the store -------------------------------------------------------

/** A folder outside the store holding a file whose bytes must never change. */
function outside(): { dir: string; victim: string; bytes: Buffer } {
  const dir = temp('baton-outside-');
  const victim = join(dir, 'victim.txt');
  const bytes = Buffer.from('bytes outside the store\n');
  fs.writeFileSync(victim, bytes);
  return { dir, victim, bytes };
}

function hook(home: string, payload: Record<string, unknown>) {
  return baton(['hook', 'claude'], { home, input: JSON.stringify({ cwd: home, ...payload }) });
}

test('an events.jsonl that is a link to a valid log outside the store: the append is refused (WS010) and the outside log is unchanged', () => {
  const home = temp();
  const dir = newSession(home, 'loglink');
  const out = outside();
  const target = join(out.dir, 'events.jsonl');
  fs.copyFileSync(join(dir, 'events.jsonl'), target);
  fs.rmSync(join(dir, 'events.jsonl'));
  fs.rmSync(join(dir, '.verified'), { force: true });
  fs.symlinkSync(target, join(dir, 'events.jsonl'));
  const before = treeHash(out.dir);
  const r = append(home, 'loglink', 'through the link');
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^baton: WS010 /m);
  assert.equal(treeHash(out.dir), before);
});

test('links planted for the files written in place or appended (.verified, manifest.json, index.feed, context.md): the append lands in the store, nothing outside changes', () => {
  const home = temp();
  const dir = newSession(home, 'inplace');
  assert.equal(append(home, 'inplace', 'one').code, 0);
  const out = outside();
  const planted = [join(dir, '.verified'), join(dir, 'manifest.json'), join(home, 'index.feed'), join(dir, 'context.md')];
  for (const p of planted) {
    fs.rmSync(p, { force: true });
    fs.symlinkSync(out.victim, p);
  }
  const before = treeHash(out.dir);
  const r = append(home, 'inplace', 'two');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(treeHash(out.dir), before);
  assert.deepEqual(fs.readFileSync(out.victim), out.bytes);
  assert.equal(readJsonl(join(dir, 'events.jsonl')).at(-1).payload.text, 'two');
  // The projections were replaced by files of their own (rename replaces the link, not its target).
  assert.equal(fs.lstatSync(join(dir, 'manifest.json')).isFile(), true);
  assert.equal(fs.lstatSync(join(dir, 'context.md')).isFile(), true);
});

test('links planted for the hook files (episodes.json, hooks/claude.*.last, journal.jsonl): a prompt and a publish write nothing outside', () => {
  const home = temp();
  const sid = 'hooklinks';
  assert.equal(hook(home, { session_id: sid, hook_event_name: 'SessionStart', source: 'startup' }).code, 0);
  assert.equal(hook(home, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'first' }).code, 0);
  const dir = join(home, 'sessions', sid);
  const out = outside();
  const lasts = fs.readdirSync(join(home, 'hooks')).map((n) => join(home, 'hooks', n));
  assert.ok(lasts.length > 0);
  for (const p of [join(dir, 'episodes.json'), join(dir, 'journal.jsonl'), ...lasts]) {
    fs.rmSync(p, { force: true });
    fs.symlinkSync(out.victim, p);
  }
  const before = treeHash(out.dir);
  const r = hook(home, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'second' });
  assert.equal(r.code, 0, r.stderr);
  const state = JSON.parse(fs.readFileSync(join(dir, 'state.json'), 'utf8'));
  const p = baton(['pointer', 'publish'], {
    home,
    input: JSON.stringify({ schema_version: 3, session_id: sid, expected_generation: state.generation, expected_revision: state.revision, task_id: state.task_id ?? '3f0c8a52-2b7e-4c1d-9a6f-0e5b7d9c1a24', target_status: 'CLEAN', pointer_text: 'Goal: g\nNext: n' }),
  });
  assert.equal(p.code, 0, p.stderr);
  assert.equal(p.json.journal_appended, false);
  assert.equal(treeHash(out.dir), before);
  assert.deepEqual(fs.readFileSync(out.victim), out.bytes);
});

test('a baton.db (or its -wal) that is a link: list and search refuse with WS010 and the target is unchanged', () => {
  const home = temp();
  newSession(home, 'dblink');
  const out = outside();
  for (const name of ['baton.db', 'baton.db-wal']) {
    for (const ext of ['', '-wal', '-shm']) fs.rmSync(join(home, `baton.db${ext}`), { force: true });
    fs.symlinkSync(out.victim, join(home, name));
    const before = treeHash(out.dir);
    for (const args of [['session', 'list'], ['search', 'Hardening']]) {
      const r = baton(args, { home });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^baton: WS010 /m);
    }
    assert.equal(treeHash(out.dir), before);
    fs.rmSync(join(home, name));
  }
});

test('a session folder, sessions/, or a subfolder (artifacts/, quarantine/, hooks/) that is a link out of the store is refused (WS010); the outside folder is unchanged', () => {
  const home = temp();
  const dir = newSession(home, 'dirlink');
  const out = outside();
  // The session folder itself, moved outside and linked back.
  const moved = join(out.dir, 'dirlink');
  fs.cpSync(dir, moved, { recursive: true });
  fs.rmSync(dir, { recursive: true });
  fs.symlinkSync(moved, dir);
  let before = treeHash(out.dir);
  for (const args of [['session', 'append', 'dirlink', '--text', 'x'], ['session', 'release', 'dirlink'], ['session', 'archive', 'dirlink']]) {
    const r = baton(args, { home, env: CLI });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^baton: WS010 /m);
  }
  const start = hook(home, { session_id: 'dirlink', hook_event_name: 'SessionStart', source: 'startup' });
  assert.equal(start.code, 0, 'a hook never breaks the agent');
  assert.match(start.stderr, /WS010/);
  // A prompt whose DIRTY mark cannot be written blocks (pointer.md's one blocking case), naming why.
  const prompt = hook(home, { session_id: 'dirlink', hook_event_name: 'UserPromptSubmit', prompt: 'through the link' });
  assert.equal(prompt.code, 2, prompt.stderr);
  assert.equal(JSON.parse(prompt.stdout).decision, 'block');
  assert.match(prompt.stdout, /WRITE_FAILED.*symbolic link/);
  assert.equal(treeHash(out.dir), before);
  fs.rmSync(dir);

  // sessions/ as a whole.
  newSession(home, 'insess');
  const sessions = join(home, 'sessions');
  fs.renameSync(sessions, join(out.dir, 'sessions'));
  fs.symlinkSync(join(out.dir, 'sessions'), sessions);
  before = treeHash(out.dir);
  for (const args of [['session', 'new', 'Another', '--id', 'another'], ['session', 'append', 'insess', '--text', 'x']]) {
    const r = baton(args, { home, env: CLI });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^baton: WS010 /m);
  }
  assert.equal(treeHash(out.dir), before);
  fs.rmSync(sessions);

  // Subfolders of a real session.
  const d2 = newSession(home, 'subs');
  const file = join(out.dir, 'artifact.txt');
  fs.writeFileSync(file, 'an artifact');
  fs.symlinkSync(out.dir, join(d2, 'artifacts'));
  fs.symlinkSync(out.dir, join(d2, 'quarantine'));
  fs.appendFileSync(join(d2, 'events.jsonl'), '{"seq":3,"torn');
  before = treeHash(out.dir);
  const art = baton(['session', 'artifact', 'add', 'subs', file, '--as', 'copied.txt'], { home, env: CLI });
  assert.equal(art.code, 2, art.stderr);
  assert.match(art.stderr, /^baton: WS010 /m);
  const torn = append(home, 'subs', 'after a torn tail');
  assert.equal(torn.code, 2, torn.stderr);
  assert.match(torn.stderr, /^baton: WS010 /m);
  fs.rmSync(join(home, 'hooks'), { recursive: true, force: true });
  fs.symlinkSync(out.dir, join(home, 'hooks'));
  assert.equal(hook(home, { session_id: 'subs-hook', hook_event_name: 'SessionStart', source: 'startup' }).code, 0);
  assert.equal(treeHash(out.dir), before);
});

// --- the store's home -------------------------------------------------------------------

/** Paths at the top of `/` that a refused `--home /` must not create; removed after the test if it did. */
function rootWatch(t: { after: (fn: () => void) => void }): string[] {
  const names = ['sessions', 'baton.db', 'baton.db-wal', 'baton.db-shm', 'index.feed', 'hooks', 'projects.json', '.baton-home'];
  const absent = names.map((n) => join('/', n)).filter((p) => !fs.existsSync(p));
  t.after(() => {
    for (const p of absent) fs.rmSync(p, { recursive: true, force: true });
  });
  return absent;
}

test('--home / is refused (WS011) before anything is written, by the CLI, the index and a hook', (t) => {
  const absent = rootWatch(t);
  const r = baton(['--home', '/', 'session', 'new', 'At the root', '--id', 'atroot'], { env: CLI });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^baton: WS011 /m);
  // Reading finds no sessions there and builds no index (or refuses): either way it writes nothing.
  const l = baton(['--home', '/', 'session', 'list', '--all']);
  assert.ok(l.code === 0 || /^baton: WS011 /m.test(l.stderr), l.stderr);
  const h = baton(['--home', '/', 'hook', 'claude'], { input: JSON.stringify({ session_id: 'atroot', cwd: '/tmp', hook_event_name: 'SessionStart', source: 'startup' }) });
  assert.equal(h.code, 0, 'a hook never breaks the agent');
  assert.match(h.stderr, /WS011/);
  assert.deepEqual(absent.filter((p) => fs.existsSync(p)), [], 'nothing was created at the root');
});

test('a home that exists, holds other files and has no marker is refused (WS011) and left as it was; an empty one becomes a store with its marker', () => {
  const home = temp();
  fs.writeFileSync(join(home, 'notes.txt'), 'not a store\n');
  fs.mkdirSync(join(home, 'src'));
  const before = treeHash(home);
  const r = baton(['session', 'new', 'Here', '--id', 'here'], { home, env: CLI });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^baton: WS011 /m);
  for (const args of [['session', 'list', '--all'], ['search', 'x', '--all']]) {
    const q = baton(args, { home });
    assert.ok(q.code === 0 || /^baton: WS011 /m.test(q.stderr), `${args.join(' ')}: ${q.stderr}`);
  }
  const h = hook(home, { session_id: 'here', hook_event_name: 'SessionStart', source: 'startup' });
  assert.equal(h.code, 0);
  assert.match(h.stderr, /WS011/);
  assert.equal(treeHash(home), before);
  const empty = temp();
  newSession(empty, 'fresh');
  assert.equal(fs.statSync(join(empty, '.baton-home')).isFile(), true);
});

test('a store made before the marker existed is recognised by its layout and gets its marker', () => {
  const home = temp();
  newSession(home, 'old');
  fs.rmSync(join(home, '.baton-home'));
  fs.rmSync(join(home, 'baton.db'), { force: true });
  assert.equal(append(home, 'old', 'still works').code, 0);
  const r = baton(['session', 'new', 'Second', '--id', 'second'], { home, env: CLI });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.existsSync(join(home, '.baton-home')), true);
  const l = baton(['session', 'list', '--all', '--json'], { home });
  assert.equal(l.code, 0, l.stderr);
});

test('a dangling sessions link, --home /proc, a file where a folder should be: coded refusals (WS010, WS011, WS012), never an endless recursion', () => {
  const home = temp();
  newSession(home, 'first');
  fs.rmSync(join(home, 'sessions'), { recursive: true });
  fs.symlinkSync(join(home, 'nowhere'), join(home, 'sessions'));
  const h = hook(home, { session_id: 'dangling', hook_event_name: 'SessionStart', source: 'startup' });
  assert.equal(h.code, 0);
  assert.doesNotMatch(h.stderr, /call stack/);
  assert.match(h.stderr, /WS010/);
  assert.equal(fs.existsSync(join(home, 'nowhere')), false, 'the link was not followed to make a folder');
  const before = treeHash(home);
  const n = baton(['session', 'new', 'New', '--id', 'dangling'], { home, env: CLI });
  assert.equal(n.code, 2, n.stderr);
  assert.match(n.stderr, /^baton: WS010 /m);
  assert.equal(treeHash(home), before);

  const proc = baton(['--home', '/proc', 'session', 'new', 'In proc', '--id', 'inproc'], { env: CLI });
  assert.equal(proc.code, 2, proc.stderr);
  assert.match(proc.stderr, /^baton: WS011 /m);

  const home2 = temp();
  newSession(home2, 'first');
  fs.rmSync(join(home2, 'sessions'), { recursive: true });
  fs.writeFileSync(join(home2, 'sessions'), 'a file');
  const before2 = treeHash(home2);
  const f = baton(['session', 'new', 'New', '--id', 'second'], { home: home2, env: CLI });
  assert.equal(f.code, 2, f.stderr);
  assert.match(f.stderr, /^baton: WS012 /m);
  // A home below a file: ENOTDIR from the filesystem, coded.
  const below = baton(['--home', join(home2, 'sessions', 'x'), 'session', 'new', 'Below', '--id', 'below'], { env: CLI });
  assert.equal(below.code, 2, below.stderr);
  assert.match(below.stderr, /^baton: WS012 /m);
  assert.equal(treeHash(home2), before2);
});

test('temp files a killed writer left (.context.md.*.tmp, .manifest.json.*.tmp) are swept by the next projection rebuild once older than a minute; a fresh one stays', () => {
  const home = temp();
  const dir = newSession(home, 'temps');
  const old = [join(dir, '.context.md.4242.l9k2x.1.abcdef.tmp'), join(dir, '.manifest.json.4242.l9k2x.2.abcdef.tmp'), join(dir, '.state.json.4242.l9k2x.3.abcdef.tmp')];
  const fresh = join(dir, '.context.md.4343.l9k2y.1.ghijkl.tmp');
  const past = new Date(Date.now() - 2 * 60_000);
  for (const p of old) {
    fs.writeFileSync(p, 'half a projection');
    fs.utimesSync(p, past, past);
  }
  fs.writeFileSync(fresh, 'a writer at work');
  assert.equal(append(home, 'temps', 'next').code, 0);
  assert.deepEqual(old.filter((p) => fs.existsSync(p)), []);
  assert.equal(fs.existsSync(fresh), true);
});

test('a store on a read-only filesystem: the append is refused with a code (WS013), exit 2, not raw errno text', { skip: NO_MOUNT }, (t) => {
  const disk = diskFor(t);
  if (!disk) return;
  const home = join(disk, 'store');
  const dir = newSession(home, 'ro');
  const bytes = fs.readFileSync(join(dir, 'events.jsonl'));
  assert.equal(spawnSync('mount', ['-o', 'remount,ro', disk]).status, 0);
  t.after(() => spawnSync('mount', ['-o', 'remount,rw', disk]));
  for (const args of [['session', 'append', 'ro', '--text', 'x'], ['session', 'new', 'Another', '--id', 'another']]) {
    const r = baton(args, { home, env: CLI });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^baton: WS013 .*EROFS/m);
  }
  const j = baton(['--json', 'session', 'append', 'ro', '--text', 'x'], { home, env: CLI });
  assert.equal(j.json.ok, false);
  assert.equal(j.json.error.code, 'WS013');
  assert.deepEqual(fs.readFileSync(join(dir, 'events.jsonl')), bytes);
});

test('a create refused or failed leaves no session folder: a lease past year 9999, a parent that is not an id, a disk that takes nothing', () => {
  const home = temp();
  newSession(home, 'first');
  const before = treeHash(home);
  const lease = baton(['session', 'new', 'Long', '--id', 'long', '--lease', '999999999999d'], { home, env: CLI });
  assert.equal(lease.code, 2, lease.stderr);
  assert.match(lease.stderr, /^baton: USAGE .*lease/m);
  const parent = baton(['session', 'new', 'Child', '--id', 'child', '--parent', '../x'], { home, env: CLI });
  assert.equal(parent.code, 2, parent.stderr);
  assert.match(parent.stderr, /^baton: WS003 /m);
  const full = batonLimited(home, 0, ['session', 'new', 'Nothing fits', '--id', 'nofit']);
  assert.equal(full.code, 2, full.stderr);
  assert.match(full.stderr, /^baton: WS206 /m);
  assert.equal(treeHash(home), before, 'no folder, lock.json or line was left');
  const resume = baton(['session', 'resume', 'first', '--lease', '999999999999d'], { home, env: CLI });
  assert.equal(resume.code, 2, resume.stderr);
  assert.equal(treeHash(home), before);
});
