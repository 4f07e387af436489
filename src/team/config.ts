// This machine's membership of a team: <home>/team.json (0600) holds the connection URL
// (which may carry a password: it is never printed) and this machine's name. Who writes:
// `team join` / `team leave`. What a crash leaves: the old file or the new one.
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fail } from '../core/errors.ts';
import { FILE_MODE, writeFileAtomic } from '../store/fsutil.ts';
import type { ProjectRule } from './projects.ts';
import { parsePgUrl } from './url.ts';

export interface TeamConfig {
  url: string;
  machine: string;
  joined_at: string;
  /** `team share --project` rules (projects.ts). */
  projects?: ProjectRule[];
}

export const MACHINE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const configPath = (home: string): string => join(home, 'team.json');

export function readConfig(home: string): TeamConfig | null {
  try {
    return JSON.parse(fs.readFileSync(configPath(home), 'utf8')) as TeamConfig;
  } catch {
    return null;
  }
}

/** TM001 when this home has not joined a team. */
export function requireConfig(home: string): TeamConfig {
  const c = readConfig(home);
  if (!c) fail('TM001', 'this machine has not joined a team: run baton team join URL', { command: 'baton team join URL' });
  return c;
}

export function writeConfig(home: string, c: TeamConfig): void {
  writeFileAtomic(configPath(home), `${JSON.stringify(c, null, 2)}\n`, { durable: true, mode: FILE_MODE });
}

export function removeConfig(home: string): void {
  fs.rmSync(configPath(home), { force: true });
}

export function checkMachineName(name: string | undefined): string {
  const n = name ?? hostname().split('.')[0];
  if (!MACHINE_RE.test(n)) fail('USAGE', `invalid machine name ${JSON.stringify(n)}: it must match ${MACHINE_RE.source}`, { rule: MACHINE_RE.source });
  return n;
}

/**
 * A URL `team join` accepts: a libpq connection URI (postgres:// or postgresql://, src/team/url.ts),
 * parsed before anything is written: USAGE when malformed, TM005 for a form baton cannot honour.
 */
export function checkUrl(url: string): string {
  parsePgUrl(url);
  return url;
}
