// The team URL read as libpq reads a connection URI (src/team/url.ts): the hierarchical parts,
// the query's keywords over them, the PG* variables, the default socket folder, several hosts,
// and the refusals (USAGE malformed, TM005 unsupported). No database: test/team-socket.test.ts
// connects through these forms to a real PostgreSQL.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isBatonError } from '../src/core/errors.ts';
import { maskUrl, parsePgUrl, urlSecrets } from '../src/team/url.ts';
import { tmpDir } from './helpers.ts';

const env = { PGUSER: 'me' };
const parse = (url: string, e: NodeJS.ProcessEnv = env, socketDirs = ['/nonexistent-a', '/nonexistent-b']) => parsePgUrl(url, { env: e, socketDirs });

function refused(url: string, code: string, e: NodeJS.ProcessEnv = env): string {
  try {
    parse(url, e);
  } catch (err) {
    assert.ok(isBatonError(err), String(err));
    assert.equal(err.code, code, `${url}: ${err.message}`);
    return err.message;
  }
  assert.fail(`${url} was accepted`);
}

test('the plain form: user, password, host, port, database, all percent-decoded', () => {
  const c = parse('postgresql://al%40ice:p%2Fw@db.example:6543/my%20db');
  assert.deepEqual(c.hosts, [{ host: 'db.example', port: 6543, socket: null }]);
  assert.equal(c.user, 'al@ice');
  assert.equal(c.password, 'p/w');
  assert.equal(c.database, 'my db');
  assert.equal(c.sslmode, 'prefer');
  assert.equal(c.connectTimeoutS, null);
  assert.equal(c.applicationName, 'baton');
  assert.equal(parse('postgres://h').database, 'me', 'the database defaults to the user');
  assert.deepEqual(parse('postgres://[::1]:7/d').hosts, [{ host: '::1', port: 7, socket: null }]);
});

test('a socket folder as host: in the query (psql’s form) or percent-encoded in the host part', () => {
  const q = parse('postgresql:///db?host=/var/run/postgresql');
  assert.deepEqual(q.hosts, [{ host: '/var/run/postgresql', port: 5432, socket: '/var/run/postgresql/.s.PGSQL.5432' }]);
  assert.equal(q.database, 'db');
  assert.equal(q.sslmode, 'disable', 'libpq never uses SSL on a socket');
  const enc = parse('postgresql://user@%2Fvar%2Frun%2Fpostgresql:5433/db');
  assert.deepEqual(enc.hosts, [{ host: '/var/run/postgresql', port: 5433, socket: '/var/run/postgresql/.s.PGSQL.5433' }]);
  assert.equal(enc.user, 'user');
  assert.deepEqual(parse('postgresql://%40baton-pg/db').hosts, [{ host: '@baton-pg', port: 5432, socket: '\0baton-pg/.s.PGSQL.5432' }]);
});

test('the query replaces the hierarchical parts; every honoured keyword is read', () => {
  const c = parse('postgres://a:b@h1:1/d1?host=h2&port=2&user=u&password=p%26q&dbname=d2&sslmode=require&connect_timeout=7&application_name=app');
  assert.deepEqual(c.hosts, [{ host: 'h2', port: 2, socket: null }]);
  assert.deepEqual([c.user, c.password, c.database, c.sslmode, c.connectTimeoutS, c.applicationName], ['u', 'p&q', 'd2', 'require', 7, 'app']);
  assert.equal(parse('postgres://h/d?connect_timeout=1').connectTimeoutS, 2, 'libpq takes 1 as 2');
  assert.equal(parse('postgres://h/d?ssl=true').sslmode, 'require');
  assert.equal(parse('postgres://h/d?fallback_application_name=x').applicationName, 'x');
  assert.equal(parse('postgres://h/d?target_session_attrs=any').hosts.length, 1);
});

test('several hosts, each with its port, or one port for all; the query may list them too', () => {
  const c = parse('postgresql://host1:5432,host2:5433/somedb');
  assert.deepEqual(c.hosts, [
    { host: 'host1', port: 5432, socket: null },
    { host: 'host2', port: 5433, socket: null },
  ]);
  assert.deepEqual(
    parse('postgresql://h1,h2:6000/d').hosts.map((h) => h.port),
    [5432, 6000],
    'an entry without a port takes the default',
  );
  assert.deepEqual(
    parse('postgresql:///d?host=h1,/sock&port=7').hosts,
    [
      { host: 'h1', port: 7, socket: null },
      { host: '/sock', port: 7, socket: '/sock/.s.PGSQL.7' },
    ],
  );
  assert.deepEqual(
    parse('postgresql:///d?host=h1,h2,h3&port=1,2,3').hosts.map((h) => `${h.host}:${h.port}`),
    ['h1:1', 'h2:2', 'h3:3'],
  );
  assert.match(refused('postgresql:///d?host=h1,h2,h3&port=1,2', 'USAGE'), /2 ports for 3 hosts/);
});

test('an empty host means the default socket folder: the first holding the port’s socket, else the first', () => {
  const a = tmpDir('baton-url-a-');
  const b = tmpDir('baton-url-b-');
  try {
    assert.equal(parsePgUrl('postgresql:///db', { env, socketDirs: [a, b] }).hosts[0].socket, join(a, '.s.PGSQL.5432'));
    fs.writeFileSync(join(b, '.s.PGSQL.5432'), '');
    assert.equal(parsePgUrl('postgresql:///db', { env, socketDirs: [a, b] }).hosts[0].socket, join(b, '.s.PGSQL.5432'));
    assert.equal(parsePgUrl('postgresql://:5999/db', { env, socketDirs: [a, b] }).hosts[0].socket, join(a, '.s.PGSQL.5999'));
    assert.equal(parsePgUrl('postgresql://h/db?host=', { env, socketDirs: [a, b] }).hosts[0].host, b, 'an empty host= too');
  } finally {
    fs.rmSync(a, { recursive: true, force: true });
    fs.rmSync(b, { recursive: true, force: true });
  }
});

test('PG* variables fill what the URL leaves out, never what it gives', () => {
  const e = { PGHOST: '/run/pg', PGPORT: '6001', PGUSER: 'eu', PGPASSWORD: 'ep', PGDATABASE: 'ed', PGSSLMODE: 'require', PGCONNECT_TIMEOUT: '9', PGAPPNAME: 'ea' };
  const c = parse('postgresql://', e);
  assert.deepEqual(c.hosts, [{ host: '/run/pg', port: 6001, socket: '/run/pg/.s.PGSQL.6001' }]);
  assert.deepEqual([c.user, c.password, c.database, c.connectTimeoutS, c.applicationName], ['eu', 'ep', 'ed', 9, 'ea']);
  const d = parse('postgresql://u:p@h:1/d?sslmode=disable&connect_timeout=3&application_name=x', e);
  assert.deepEqual([d.hosts[0].host, d.hosts[0].port, d.user, d.password, d.database, d.sslmode, d.connectTimeoutS, d.applicationName], ['h', 1, 'u', 'p', 'd', 'disable', 3, 'x']);
  assert.equal(parse('postgresql://h/d', e).sslmode, 'require');
});

test('malformed URLs are USAGE', () => {
  for (const url of ['mysql://h/d', 'http://h', 'postgres:/h', 'postgres://h:99999/d', 'postgres://h:x/d', 'postgres://h/%E0%A4%A', 'postgres://h/d?nokey', 'postgres://[::1/d', 'postgres://h/d?connect_timeout=5s']) {
    refused(url, 'USAGE');
  }
});

test('well-formed forms baton cannot honour are TM005 naming the keyword, never ignored', () => {
  const cases: [string, string][] = [
    ['postgres://h/d?sslrootcert=/etc/ca.pem', 'sslrootcert'],
    ['postgres://h/d?hostaddr=10.0.0.1', 'hostaddr'],
    ['postgres://h/d?options=-c%20search_path%3Dx', 'options'],
    ['postgres://h/d?no_such_keyword=1', 'no_such_keyword'],
    ['postgres://h/d?target_session_attrs=read-write', 'target_session_attrs'],
    ['postgres://h/d?sslmode=sometimes', 'sslmode'],
    ['postgres://h/d?ssl=false', 'ssl'],
    ['postgres://h/d?connect_timeout=0', 'connect_timeout'],
    ['postgres:///d?host=h,/sock&sslmode=require', 'sslmode'],
  ];
  for (const [url, keyword] of cases) {
    try {
      parse(url);
      assert.fail(`${url} was accepted`);
    } catch (err) {
      assert.ok(isBatonError(err), String(err));
      assert.equal(err.code, 'TM005', url);
      assert.equal(err.details.keyword, keyword);
      assert.ok(err.message.includes(keyword));
    }
  }
});

test('the password is masked in the user part and in the query; secrets are listed for scrubbing', () => {
  assert.equal(maskUrl('postgres://alice:s3cr%40t@db/team'), 'postgres://alice:***@db/team');
  assert.equal(maskUrl('postgresql:///db?host=/s&password=s3cret&port=5'), 'postgresql:///db?host=/s&password=***&port=5');
  assert.equal(maskUrl('postgresql://h1:1,h2:2/db'), 'postgresql://h1:1,h2:2/db');
  assert.equal(maskUrl('postgresql://u@h1:1,h2:2/db'), 'postgresql://u@h1:1,h2:2/db');
  assert.deepEqual(urlSecrets('postgres://alice:s3cr%40t@db/team'), ['s3cr@t', 's3cr%40t']);
  assert.deepEqual(urlSecrets('postgres://db/team?password=x'), ['x']);
  assert.deepEqual(urlSecrets('postgres://db/team'), []);
});
