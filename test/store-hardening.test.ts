// The store's hardening (issue 11): a corrupt last line is not a torn tail, a failed append
// leaves nothing, no write follows a link planted in the store, a home baton did not make is
// refused, dangling links and stale temp files are handled, and errno failures come out as
// codes. Black-box through the real binary; every refusal also checks the disk.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const CLI = { BATON_INSTANCE: 'test-hardening' };

function newSession(home: string, id: string): string {
  const r = baton(['session', 'new', 'Hardening', '--id', id, '--lease', '2h'], { home, env: CLI });
  assert.equal(r.code, 0, r.stderr);
  return join(home, 'sessions', id);
}

function append(home: string, id: string, text: string) {
  return baton(['session', 'append', id, '--text', text], { home, env: CLI });
}

test('a complete last line whose chain hash does not match is corruption (WS201), not a torn tail: nothing is quarantined, appends are refused', () => {
  const home = tmpDir();
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
  const home = tmpDir();
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
  const home = tmpDir();
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

/** A 1 MiB tmpfs for a full disk, or null where mounting is not allowed (not root, no tmpfs). */
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

const disk = smallDisk();
test('an append on a full disk (ENOSPC) changes nothing: WS206, exit 2, no partial line, no empty quarantine file on retries', { skip: disk ? false : 'cannot mount a tmpfs here' }, (t) => {
  if (!disk) return;
  t.after(disk.done);
  const home = join(disk.dir, 'store');
  const dir = newSession(home, 'full');
  assert.equal(append(home, 'full', 'before the disk filled').code, 0);
  // Fill the disk: one filler file takes every free page.
  const filler = fs.openSync(join(disk.dir, 'filler'), 'w');
  const page = Buffer.alloc(4096, 0x61);
  try {
    for (;;) if (fs.writeSync(filler, page) < page.length) break;
  } catch (e) {
    assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  fs.closeSync(filler);
  // Two pages back: enough for the mutex token, not for the line.
  fs.truncateSync(join(disk.dir, 'filler'), fs.statSync(join(disk.dir, 'filler')).size - 2 * 4096);
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
  fs.rmSync(join(disk.dir, 'filler'));
  assert.equal(append(home, 'full', 'after').code, 0);
  assert.equal(baton(['session', 'verify', 'full'], { home }).code, 0);
});
