// libpq's URL forms against a real PostgreSQL over its unix socket (test/pg.ts's private
// cluster, its socket in its own folder): `?host=FOLDER`, a percent-encoded folder as host,
// several hosts (a dead one first), PGHOST. The cluster refuses every TCP connection
// (pg_hba `reject`), so a join that succeeds went through the socket: no TCP fallback.
// Refusals (TM005, a folder with no server) leave the home as it was.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { type PgCluster, startPg } from './pg.ts';

let pg: PgCluster;
const homes: string[] = [];

before(async () => {
  pg = await startPg();
  pg.rejectTcp();
});
after(() => {
  pg?.destroy();
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true });
});

function home(): string {
  const h = tmpDir('baton-sock-');
  homes.push(h);
  return h;
}

/** A TCP port nothing listens on. */
async function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const enc = (dir: string) => encodeURIComponent(dir);

function joins(url: string, env: Record<string, string> = {}): { join: string; status: string } {
  const h = home();
  const r = baton(['team', 'join', url, '--name', 'm1', '--json'], { home: h, env });
  assert.equal(r.code, 0, `${url}: ${r.stderr}${r.stdout}`);
  assert.equal(r.json.ok, true);
  assert.equal(r.json.schema_version, 1);
  const s = baton(['team', 'status', '--json'], { home: h, env });
  assert.equal(s.code, 0, s.stderr + s.stdout);
  assert.equal(s.json.reachable, true, s.stdout);
  assert.deepEqual(
    s.json.machines.map((m: { name: string }) => m.name),
    ['m1'],
  );
  return { join: r.stdout + r.stderr, status: s.stdout + s.stderr };
}

test('TCP is refused by the cluster: the plain URL fails with TM002 (so what joins below came over the socket)', () => {
  const h = home();
  const before = treeHash(h);
  const r = baton(['team', 'join', pg.url, '--name', 'm1', '--json'], { home: h });
  assert.equal(r.json?.error?.code ?? r.json?.code, 'TM002', r.stdout + r.stderr);
  assert.equal(treeHash(h), before);
});

test("psql's form: postgresql:///db?host=FOLDER&port=P (a password in the query is masked)", () => {
  // Trust authentication ignores the password: it is here to be masked.
  const out = joins(`postgresql:///postgres?host=${pg.dir}&port=${pg.port}&user=postgres&password=hunter2`);
  for (const o of [out.join, out.status]) {
    assert.ok(!o.includes('hunter2'), o);
    assert.ok(o.includes('password=***'), o);
  }
});

test('a percent-encoded socket folder as host: postgresql://user@%2F…:P/db', () => {
  joins(`postgresql://postgres@${enc(pg.dir)}:${pg.port}/postgres`);
});

test('several hosts: a dead TCP one first, then the socket folder', async () => {
  joins(`postgresql://postgres@127.0.0.1:${await deadPort()},${enc(pg.dir)}:${pg.port}/postgres?connect_timeout=3`);
});

test('PGHOST and PGPORT name the socket when the URL leaves the host out', () => {
  joins('postgresql://postgres@/postgres', { PGHOST: pg.dir, PGPORT: String(pg.port) });
});

test('a form baton cannot honour is TM005 before anything is written', () => {
  const h = home();
  const before = treeHash(h);
  const r = baton(['team', 'join', `postgresql:///postgres?host=${pg.dir}&port=${pg.port}&sslrootcert=/etc/ca.pem`, '--json'], { home: h });
  assert.equal(r.code, 2, r.stderr + r.stdout);
  assert.equal(r.json?.error?.code ?? r.json?.code, 'TM005', r.stdout);
  assert.match(r.stdout, /sslrootcert/);
  assert.equal(treeHash(h), before);
  assert.equal(fs.existsSync(`${h}/team.json`), false);
});

test('a socket folder with no server is TM002 naming the socket, never a TCP attempt', () => {
  const h = home();
  const before = treeHash(h);
  const empty = tmpDir('baton-nosock-');
  homes.push(empty);
  const r = baton(['team', 'join', `postgresql:///postgres?host=${empty}&port=${pg.port}`, '--json'], { home: h });
  assert.equal(r.json?.error?.code ?? r.json?.code, 'TM002', r.stdout + r.stderr);
  assert.ok(r.stdout.includes(`${empty}/.s.PGSQL.${pg.port}`), r.stdout);
  assert.ok(!/127\.0\.0\.1|localhost/.test(r.stdout), r.stdout);
  assert.equal(treeHash(h), before);
});
