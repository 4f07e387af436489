// Store edges from the adversarial trial (issue 28), through the real binary: an
// unterminated tail over 1 MiB is a torn tail (quarantined by the next writer and by repair),
// a state.json that is a symbolic link is refused with WS010 and never read through, and a
// user's redaction pattern that backtracks without bound is stopped at its deadline.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const scratch = (): string => {
  const d = tmpDir();
  dirs.push(d);
  return d;
};
const ok = (r: { code: number; stderr: string }): void => assert.equal(r.code, 0, r.stderr);

/** A session `id` whose log ends in `tail` (no newline), as a crash in the middle of a huge write would leave it. */
function tornSession(home: string, id: string, tail: Buffer): string {
  ok(baton(['session', 'new', id, '--id', id], { home }));
  ok(baton(['session', 'append', id, '--text', 'before the crash'], { home }));
  const log = join(home, 'sessions', id, 'events.jsonl');
  fs.appendFileSync(log, tail);
  return log;
}

const quarantined = (home: string, id: string): Buffer[] => {
  const q = join(home, 'sessions', id, 'quarantine');
  return fs.existsSync(q) ? fs.readdirSync(q).map((n) => fs.readFileSync(join(q, n))) : [];
};

test('an unterminated tail over 1 MiB: the next append and session repair quarantine it, byte for byte', () => {
  const home = join(scratch(), 'store');
  const tail = Buffer.from(`{"seq":4,"ts":"2026-01-01T00:00:00.000Z","type":"context.appended","payload":{"text":"${'x'.repeat(1536 * 1024)}`);
  const a = 'big-tail-append';
  const logA = tornSession(home, a, tail);
  const sizeBefore = fs.statSync(logA).size;
  ok(baton(['session', 'append', a, '--text', 'after the crash'], { home }));
  assert.deepEqual(quarantined(home, a), [tail]);
  assert.ok(fs.statSync(logA).size < sizeBefore - tail.length + 1024, 'the tail left the log');
  ok(baton(['session', 'verify', a], { home }));

  const b = 'big-tail-repair';
  const logB = tornSession(home, b, tail);
  const r = baton(['session', 'repair', b, '--json'], { home });
  ok(r);
  assert.deepEqual(quarantined(home, b), [tail]);
  assert.ok(fs.readFileSync(logB).toString('utf8').endsWith('\n'));
  ok(baton(['session', 'verify', b], { home }));
});

test('a terminated line over 1 MiB in the middle stays corruption (WS201): nothing is quarantined or cut', () => {
  const home = join(scratch(), 'store');
  const id = 'big-line';
  const log = tornSession(home, id, Buffer.from(`{"seq":4,"x":"${'y'.repeat(1536 * 1024)}"}\n`));
  const before = treeHash(home);
  const r = baton(['session', 'append', id, '--text', 'refused', '--json'], { home });
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'WS201');
  assert.equal(treeHash(home), before);
  assert.ok(fs.existsSync(log));
});

test('a state.json that is a symbolic link: WS010, its target never read nor echoed, nothing changed', () => {
  const root = scratch();
  const home = join(root, 'store');
  const sid = randomUUID();
  const req = JSON.stringify({ schema_version: 3, session_id: sid, expected_generation: 'ABSENT', expected_revision: 0, task_id: sid, target_status: 'CLEAN', pointer_text: 'Goal: g' });
  ok(baton(['pointer', 'publish'], { home, input: req }));
  const target = join(root, 'elsewhere.json');
  fs.writeFileSync(target, JSON.stringify({ schema_version: 'TARGET-CONTENT-4242', pointer_text: 'TARGET-CONTENT-4242' }));
  const state = join(home, 'sessions', sid, 'state.json');
  fs.rmSync(state);
  fs.symlinkSync(target, state);
  const before = treeHash(home);
  const show = baton(['pointer', 'show', sid, '--json'], { home });
  assert.equal(show.code, 2);
  assert.equal(show.json.error.code, 'WS010');
  const publish = baton(['pointer', 'publish'], { home, input: req });
  assert.equal(publish.code, 2);
  assert.equal(publish.json.error, 'STATE_CORRUPT');
  assert.equal(publish.json.cause, 'WS010');
  for (const r of [show, publish]) assert.ok(!`${r.stdout}${r.stderr}`.includes('TARGET-CONTENT'), `${r.stdout}${r.stderr}`);
  assert.equal(treeHash(home), before);
  assert.ok(fs.lstatSync(state).isSymbolicLink());
});

test('session redact --pattern "(a+)+$" on a 41-character event: REDACT_TIMEOUT at the deadline, nothing written', () => {
  const home = join(scratch(), 'store');
  ok(baton(['session', 'new', 'red', '--id', 'red'], { home }));
  ok(baton(['session', 'append', 'red', '--text', `${'a'.repeat(40)}!`], { home }));
  const before = treeHash(home);
  const r = baton(['session', 'redact', 'red', '--pattern', '(a+)+$', '--timeout', '1s', '--json'], { home });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.json.error.code, 'REDACT_TIMEOUT');
  assert.equal(r.json.error.timeout_ms, 1000);
  assert.equal(treeHash(home), before);
  // A pattern that finishes is applied as before.
  const fine = baton(['session', 'redact', 'red', '--pattern', 'a{40}!', '--json'], { home });
  ok(fine);
  assert.deepEqual(fine.json.redacted_seqs, [3]);
  const help = baton(['session', 'redact', '--help'], { home });
  assert.match(help.stdout, /--timeout/);
});
