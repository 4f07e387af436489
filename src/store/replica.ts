// The ownership marker of a shared session on this machine: sessions/<id>/team.json.
// Source of truth for ownership is PostgreSQL (docs/team.md); this file is what this
// machine last learnt of it, so the write path can refuse a non-owner's write (WS105)
// without ever talking to the database. Who writes: the replicator (`sync`, `team share`,
// `team take`), atomically. What a crash leaves: the old marker or the new one, never half.
// A session with no marker is not shared: every write goes through as before.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fail } from '../core/errors.ts';
import { writeFileAtomic } from './fsutil.ts';

export const MARKER_FILE = 'team.json';

export interface OwnershipMarker {
  /** This machine's name in the team (the file is self-contained: no second read to know who "we" are). */
  machine: string;
  /** The owning machine, or null when its owner released it. */
  owner: string | null;
  /** The fencing epoch this machine last saw (bumped by every take). */
  epoch: number;
  /** When the owner took it (the database's clock). */
  since: string;
}

/** The marker of a session folder, or null when the session is not shared (one stat on the write path). */
export function readMarker(dir: string): OwnershipMarker | null {
  const path = `${dir}/${MARKER_FILE}`;
  try {
    // No ENOENT error built for the common case (not shared); anything else odd (a folder that
    // is not one, a link) is left to the write path's own checks.
    if (!fs.lstatSync(path, { throwIfNoEntry: false })?.isFile()) return null;
    return JSON.parse(fs.readFileSync(path, 'utf8')) as OwnershipMarker;
  } catch {
    return null;
  }
}

export function writeMarker(dir: string, m: OwnershipMarker): void {
  writeFileAtomic(`${dir}/${MARKER_FILE}`, `${JSON.stringify(m)}\n`, { durable: true });
}

export function removeMarker(dir: string): void {
  fs.rmSync(`${dir}/${MARKER_FILE}`, { force: true });
}

/** WS105 when another machine owns the session (or nobody does since its owner released it). */
export function checkOwnership(dir: string, id: string): void {
  const m = readMarker(dir);
  if (!m || m.owner === m.machine) return;
  const command = `baton team take ${id}`;
  if (m.owner === null) fail('WS105', `session ${id} has no owner since ${m.since}: take it with ${command}`, { session: id, owner: null, since: m.since, command });
  fail('WS105', `session ${id} owned by ${m.owner} since ${m.since}: this machine (${m.machine}) holds a read-only replica; take it over with ${command} (--steal if ${m.owner} is unreachable)`, {
    session: id,
    owner: m.owner,
    since: m.since,
    epoch: m.epoch,
    command,
  });
}

/**
 * A conflict file's name: `<epoch>-<machine>.jsonl`, `~N` before `.jsonl` when a fork of the
 * same epoch and machine was set aside before (`~` is not allowed in a machine name).
 */
export const CONFLICT_NAME = /^(\d+)-([A-Za-z0-9][A-Za-z0-9._-]*?)(?:~(\d+))?\.jsonl$/;

export interface ConflictEntry {
  /** Relative to the session folder: `conflicts/<name>`. */
  file: string;
  epoch: number;
  machine: string;
  events: number;
}

/** The session's unresolved conflicts, for the session view (thread/read, the web page's banner). */
export function conflictEntries(dir: string): ConflictEntry[] {
  return conflictsOf(dir).flatMap((c) => {
    const name = c.file.slice(c.file.lastIndexOf('/') + 1);
    const m = CONFLICT_NAME.exec(name);
    return m ? [{ file: `conflicts/${name}`, epoch: Number(m[1]), machine: m[2], events: c.events }] : [];
  });
}

/** The forks kept in a session's conflicts/ (a former owner's events, team.md): file and event count. */
export function conflictsOf(dir: string): { file: string; events: number }[] {
  let names: string[];
  try {
    names = fs.readdirSync(join(dir, 'conflicts')).filter((n) => n.endsWith('.jsonl')).sort();
  } catch {
    return [];
  }
  return names.map((n) => {
    const file = join(dir, 'conflicts', n);
    return { file, events: fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length };
  });
}
