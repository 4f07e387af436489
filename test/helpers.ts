// Shared test helpers: run the real `baton` binary in a temporary BATON_HOME, hash a tree.
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
export const BIN = join(ROOT, 'bin', 'baton.cjs');
export const FIXTURES = join(ROOT, 'test', 'fixtures', 'providers');

// Every folder tmpDir made is removed when the test file's process exits (the runner gives
// each file its own process), pass or fail: `npm test` leaves nothing in the temp dir.
const made: string[] = [];
process.on('exit', () => {
  for (const d of made) {
    try {
      fs.rmSync(d, { recursive: true, force: true, maxRetries: 2 });
    } catch {}
  }
});

export function tmpDir(prefix = 'baton-test-'): string {
  const d = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), prefix)));
  made.push(d);
  return d;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export interface RunOptions {
  home?: string;
  input?: string | Buffer;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

function toResult(r: SpawnSyncReturns<string>): RunResult {
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {}
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

/** Runs `baton ARGS` as a user would: the real binary, a temp BATON_HOME. */
export function baton(args: string[], opts: RunOptions = {}): RunResult {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', BATON_INSTANCE: undefined, BATON_SESSION: undefined, ...opts.env };
  if (opts.home) env.BATON_HOME = opts.home;
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: opts.input ?? '',
    encoding: 'utf8',
    env: env as NodeJS.ProcessEnv,
    cwd: opts.cwd,
    timeout: 60_000,
  });
  return toResult(r);
}

/** The same, asynchronously (for races between processes). */
export function batonAsync(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', BATON_INSTANCE: undefined, BATON_SESSION: undefined, ...opts.env };
  if (opts.home) env.BATON_HOME = opts.home;
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env as NodeJS.ProcessEnv, cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {}
      res({ code: code ?? -1, stdout, stderr, json });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Every entry under dir, depth first in name order (lstat: a link is an entry, never followed),
 * except those whose name `skip` says; a folder that cannot be read counts as empty.
 */
export function walkTree(dir: string, visit: (path: string, st: fs.Stats) => void, skip: (name: string) => boolean = () => false): void {
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = fs.readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (skip(n)) continue;
      const p = join(d, n);
      const st = fs.lstatSync(p);
      visit(p, st);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
}

/** A hash of every file path, mode and byte under dir: "nothing on disk changed" checks. `skip` leaves out files by name (caches). */
export function treeHash(dir: string, skip: (name: string) => boolean = () => false): string {
  const h = createHash('sha256');
  walkTree(
    dir,
    (p, st) => {
      h.update(`${p.slice(dir.length)}\0${st.mode}\0`);
      if (st.isFile()) h.update(fs.readFileSync(p));
    },
    skip,
  );
  return h.digest('hex');
}

export function readJsonl(path: string): any[] {
  return fs
    .readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.length)
    .map((l) => JSON.parse(l));
}

/** A home folder, a project and a store under one temporary root, with the env that points there. */
export interface AgentWorld {
  root: string;
  home: string;
  project: string;
  store: string;
  env: Record<string, string | undefined>;
}

export function agentWorld(extraEnv: Record<string, string | undefined> = {}): AgentWorld {
  const root = tmpDir();
  const home = join(root, 'home');
  const project = join(root, 'proj');
  const store = join(root, 'store');
  fs.mkdirSync(home);
  fs.mkdirSync(project);
  return { root, home, project, store, env: { HOME: home, BATON_HOME: store, BATON_SESSION: undefined, BATON_VERIFY: undefined, ...extraEnv } };
}
