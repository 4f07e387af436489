// When the hook last ran, per provider and aspect, for `baton status`. One tiny file per
// pair under <home>/hooks/, overwritten in place on every run without fsync: a hint, not a record
// (the log holds what happened). A crash leaves an older or empty hint.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { ensureDir, writeInPlace } from '../store/fsutil.ts';
import { claimHome } from '../store/home.ts';

export interface LastRun {
  at: string;
  event: string;
  result: string;
}

const fileOf = (home: string, provider: string, aspect: string): string => join(home, 'hooks', `${provider}.${aspect}.last`);

export function recordLastRuns(home: string, provider: string, runs: { aspect: string; event: string; result: string }[], at: string): void {
  if (runs.length === 0) return;
  try {
    claimHome(home);
    ensureDir(join(home, 'hooks'));
    for (const r of runs) writeInPlace(fileOf(home, provider, r.aspect), `${at} ${r.event} ${r.result}\n`);
  } catch {
    // A hint only: never let it fail a hook.
  }
}

export function readLastRun(home: string, provider: string, aspect: string): LastRun | null {
  try {
    const [at, event, ...rest] = fs.readFileSync(fileOf(home, provider, aspect), 'utf8').trim().split(' ');
    return at ? { at, event: event ?? '', result: rest.join(' ') } : null;
  } catch {
    return null;
  }
}
