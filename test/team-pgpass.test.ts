// The password file's rules (src/team/pgpass.ts), as libpq reads it: fields split on `:` with
// `\` escapes, `*` matching anything in the first four, the first matching line winning,
// comments skipped, a socket folder as host matching `localhost`, and a file others may read
// ignored. The black-box test (team-ops.test.ts) connects with it to a real server.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findPgpassPassword, pgpassFor, splitPgpassLine, targetOf } from '../src/team/pgpass.ts';
import { tmpDir } from './helpers.ts';

const t = { host: 'db.example', port: '5432', database: 'team', user: 'alice' };

test('fields split on : with \\ escaping : and \\', () => {
  assert.deepEqual(splitPgpassLine('h:5432:d:u:p\\:w\\\\x'), ['h', '5432', 'd', 'u', 'p:w\\x']);
  assert.deepEqual(splitPgpassLine('a\\b:c'), ['ab', 'c']);
});

test('the first line whose four fields match (literally or *) gives the password; comments and short lines are skipped', () => {
  const text = ['# a comment', 'db.example:5432:team', 'other:*:*:*:no', 'db.example:*:team:alice:first', '*:*:*:*:second', ''].join('\n');
  assert.equal(findPgpassPassword(text, t), 'first');
  assert.equal(findPgpassPassword(text, { ...t, user: 'bob' }), 'second');
  assert.equal(findPgpassPassword('db.example:5433:team:alice:x\n', t), null);
  // A password may itself hold an unescaped `:` after the fifth separator (libpq keeps the rest).
  assert.equal(findPgpassPassword('*:*:*:*:a:b\n', t), 'a:b');
  assert.equal(findPgpassPassword('*:*:*:*:crlf\r\n', t), 'crlf');
});

test('the target comes from the URL, then PG* variables, then defaults; a socket folder is localhost', () => {
  assert.deepEqual(targetOf('postgres://alice@db.example/team', {}), t);
  assert.deepEqual(targetOf('postgres:///?host=/run/postgresql', { PGUSER: 'u', PGPORT: '6000' }), { host: 'localhost', port: '6000', database: 'u', user: 'u' });
  assert.deepEqual(targetOf('postgres://x@h:7/d%20b', { PGHOST: 'ignored' }), { host: 'h', port: '7', database: 'd b', user: 'x' });
});

test('PGPASSFILE or ~/.pgpass, read only at mode 0600 (a looser file is ignored, with why, never the password)', () => {
  const dir = tmpDir('baton-pgpass-unit-');
  const file = join(dir, '.pgpass');
  const url = 'postgres://alice@db.example/team';
  assert.deepEqual(pgpassFor(url, { HOME: dir }), { password: null, file: null });
  fs.writeFileSync(file, '*:*:*:alice:s3cret\n', { mode: 0o640 });
  fs.chmodSync(file, 0o640);
  const loose = pgpassFor(url, { HOME: dir });
  assert.equal(loose.password, null);
  assert.ok('ignored' in loose && loose.ignored?.includes('mode 640') && !loose.ignored.includes('s3cret'));
  fs.chmodSync(file, 0o600);
  assert.deepEqual(pgpassFor(url, { HOME: dir }), { password: 's3cret', file });
  const other = join(dir, 'elsewhere');
  fs.writeFileSync(other, '*:*:*:*:from-env\n', { mode: 0o600 });
  assert.deepEqual(pgpassFor(url, { HOME: dir, PGPASSFILE: other }), { password: 'from-env', file: other });
  assert.equal(pgpassFor('postgres://bob@db.example/team', { HOME: dir }).password, null);
});
