// A private PostgreSQL cluster for one test file: Debian's binaries (/usr/lib/postgresql/N/bin),
// `initdb` into a temp folder owned by the `postgres` user (the server refuses to run as
// root), listening on a unix socket in that folder and on 127.0.0.1 at a free port, trust
// auth on both. Stopped and removed when the test process exits. No mock, no container.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function pgBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  let versions: string[] = [];
  try {
    versions = fs.readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  } catch {
    return null;
  }
  for (const v of versions) if (fs.existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface PgCluster {
  dir: string;
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  stop(): void;
  start(): void;
  /** Runs SQL with psql as the superuser (tests tamper with rows through it). */
  psql(sql: string, db?: string): string;
  /** Makes `role` authenticate with its password (scram-sha-256) over TCP; every other role keeps trust. */
  requirePassword(role: string): void;
  /** Refuses every TCP connection (pg_hba `reject`): what still connects came over the unix socket. */
  rejectTcp(): void;
  destroy(): void;
}

const asPostgres = (bin: string, args: string[]): string[] => (process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', bin, ...args] : [bin, ...args]);

function run(cmd: string[], what: string): string {
  const r = spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

export interface PgOptions {
  /**
   * One more address to listen on besides 127.0.0.1 (it must exist when the cluster starts),
   * and the subnet (CIDR) trusted from it: test/team-partition.test.ts reaches the cluster from
   * a network namespace through a veth pair. Other tests leave it out.
   */
  extra?: { address: string; subnet: string };
}

export async function startPg(o: PgOptions = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb): .ci/run installs the postgresql package');
  const dir = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'baton-pg-')));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  const data = join(dir, 'data');
  run(asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']), 'initdb');
  if (o.extra) {
    const hba = join(data, 'pg_hba.conf');
    fs.writeFileSync(hba, `${fs.readFileSync(hba, 'utf8')}host all all ${o.extra.subnet} trust\n`);
  }
  const port = await freePort();
  const listen = o.extra ? `127.0.0.1,${o.extra.address}` : '127.0.0.1';
  const opts = `-c listen_addresses=${listen} -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=50`;
  const cluster: PgCluster = {
    dir,
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start() {
      run(asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']), 'pg_ctl start');
    },
    stop() {
      run(asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']), 'pg_ctl stop');
    },
    psql(sql: string, db = 'postgres') {
      return run([join(bin, 'psql'), '-h', dir, '-p', String(port), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-At', '-c', sql], 'psql');
    },
    requirePassword(role: string) {
      const hba = join(data, 'pg_hba.conf');
      fs.writeFileSync(hba, `host all ${role} 127.0.0.1/32 scram-sha-256\n${fs.readFileSync(hba, 'utf8')}`);
      run(asPostgres(join(bin, 'pg_ctl'), ['-D', data, 'reload']), 'pg_ctl reload');
      // The reload is a signal: wait (bounded) until a connection without a password is refused.
      const env = { ...process.env, PGPASSFILE: '/dev/null', PGPASSWORD: '' };
      for (let i = 0; i < 100; i++) {
        const r = spawnSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', role, '-d', 'postgres', '-w', '-At', '-c', 'select 1'], { encoding: 'utf8', env });
        if (r.status !== 0) return;
        execFileSync('sleep', ['0.1']);
      }
      throw new Error(`pg_hba.conf reload: ${role} still connects without a password`);
    },
    rejectTcp() {
      const hba = join(data, 'pg_hba.conf');
      fs.writeFileSync(hba, `host all all 0.0.0.0/0 reject\nhost all all ::/0 reject\n${fs.readFileSync(hba, 'utf8')}`);
      run(asPostgres(join(bin, 'pg_ctl'), ['-D', data, 'reload']), 'pg_ctl reload');
      for (let i = 0; i < 100; i++) {
        const r = spawnSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-w', '-At', '-c', 'select 1'], { encoding: 'utf8' });
        if (r.status !== 0) return;
        execFileSync('sleep', ['0.1']);
      }
      throw new Error('pg_hba.conf reload: TCP still connects');
    },
    destroy() {
      try {
        cluster.stop();
      } catch {}
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  process.on('exit', () => cluster.destroy());
  cluster.start();
  return cluster;
}
