// Machines of a team for black-box tests: each a BATON_HOME joined to a fresh database of a
// private cluster (test/pg.ts), driving the real binary with --json. And the closing check
// every team test ends with: each machine's log verified, every acknowledged text present
// exactly once, in the log or in a conflict file.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type RunResult, baton, tmpDir } from './helpers.ts';
import type { PgCluster } from './pg.ts';

export interface Machine {
  name: string;
  home: string;
  env: Record<string, string | undefined>;
  run(args: string[], opts?: { input?: string; cwd?: string; env?: Record<string, string | undefined> }): RunResult;
  ok(args: string[], opts?: { cwd?: string }): any;
  log(id: string): string;
}

export function machine(name: string): Machine {
  const home = tmpDir(`baton-team-${name}-`);
  const env = { BATON_INSTANCE: `cli@${name}` };
  const m: Machine = {
    name,
    home,
    env,
    run: (args, o = {}) => baton([...args, '--json'], { home, env: { ...env, ...o.env }, input: o.input, cwd: o.cwd }),
    ok(args, o = {}) {
      const r = m.run(args, o);
      assert.equal(r.code, 0, `${name}: baton ${args.join(' ')} -> ${r.code}\n${r.stdout}\n${r.stderr}`);
      return r.json;
    },
    log: (id) => fs.readFileSync(join(home, 'sessions', id, 'events.jsonl'), 'utf8'),
  };
  return m;
}

let dbs = 0;

/** A fresh database of the cluster and machines joined to it. */
export function team(pg: PgCluster, ...names: string[]): { url: string; db: string; machines: Machine[] } {
  const db = `ops${++dbs}`;
  pg.psql(`create database ${db}`);
  const url = pg.url.replace(/\/postgres$/, `/${db}`);
  const machines = names.map(machine);
  for (const m of machines) m.ok(['team', 'join', url, '--name', m.name]);
  return { url, db, machines };
}

const events = (path: string): { type: string; payload: Record<string, unknown> }[] =>
  fs.existsSync(path)
    ? fs
        .readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

/** Every conflict file of a session on a machine, resolved or not. */
export function conflictFilesOf(m: Machine, id: string): string[] {
  const dir = join(m.home, 'sessions', id, 'conflicts');
  const list = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d).filter((n) => n.endsWith('.jsonl')).map((n) => join(d, n)) : []);
  return [...list(dir), ...list(join(dir, 'resolved'))];
}

/**
 * The closing check: each machine's copy verifies, the copies are equal, and each
 * acknowledged text is exactly once in the log (as its own event) or exactly once in one
 * machine's conflict files — never lost, never twice.
 */
export function allAccounted(machines: Machine[], id: string, acknowledged: string[]): void {
  for (const m of machines) m.ok(['session', 'verify', id]);
  const logs = machines.map((m) => m.log(id));
  for (const l of logs) assert.equal(l, logs[0], 'every machine holds the same log');
  const inLog = events(join(machines[0].home, 'sessions', id, 'events.jsonl'));
  const inConflicts = machines.flatMap((m) => conflictFilesOf(m, id).flatMap(events));
  for (const text of acknowledged) {
    const n = inLog.filter((e) => e.type === 'context.appended' && e.payload.text === text).length + inConflicts.filter((e) => e.payload.text === text).length;
    assert.equal(n, 1, `${JSON.stringify(text)} is present exactly once (log or conflicts/), found ${n}`);
  }
}

/** Appends a note as the CLI (needs the lease) and returns its text when acknowledged. */
export function note(m: Machine, id: string, text: string): string {
  const r = m.run(['session', 'append', id, '--text', text]);
  assert.equal(r.code, 0, `${m.name}: append ${text}: ${r.stdout}${r.stderr}`);
  return text;
}

/** Waits (bounded, not a timing assertion) until `check` holds. */
export async function until(check: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
