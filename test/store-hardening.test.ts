// The store's hardening (issue 11): a corrupt last line is not a torn tail, a failed append
// leaves nothing, no write follows a link planted in the store, a home baton did not make is
// refused, dangling links and stale temp files are handled, and errno failures come out as
// codes. Black-box through the real binary; every refusal also checks the disk.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

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
