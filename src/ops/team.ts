// Team mode on the two operations that move ownership (docs/team.md): `session resume` /
// `thread/resume` take a shared session another machine owned (never stolen) before the usual
// resume; `session release` / `thread/release` on a shared session owned here release the
// lease, then push everything and give ownership up in the same transaction. One place for
// the CLI (src/cli/session.ts) and the app server (src/server/methods.ts).
//
// Whether a session is shared is two stats (its marker and the home's team.json): the team
// bundle, dist/team.cjs with `postgres`, is required only when both say so. Every bundle that
// imports this module lists './team.cjs' as external (scripts/build.mjs).
import * as fs from 'node:fs';
import { join } from 'node:path';
import { BatonError, fail } from '../core/errors.ts';
import { checkOwnership, readMarker } from '../store/replica.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { type Resumed, releaseSession, resumeSession } from './session.ts';

/** What a take for a resume reports: the new epoch, who owned it before (null: released), events pulled. */
export interface Taken {
  epoch: number;
  previous_owner: string | null;
  pulled: number;
}

/** The functions of dist/team.cjs the other bundles call (src/team/entry.ts). */
export interface TeamBundle {
  takeForResume(store: FsStore, id: string): Promise<Taken>;
  releaseForSession<T>(store: FsStore, id: string, releaseLease: () => T): Promise<{ lease: T; pushed: number }>;
}

/**
 * What `baton doctor` says of the team, or null when this home joined none (one stat; the team
 * bundle and `postgres` load only when it did). Read-only: it never writes to the database.
 */
export async function teamHealthOf(store: FsStore): Promise<import('../team/entry.ts').TeamHealth | null> {
  if (!fs.existsSync(join(store.home, 'team.json'))) return null;
  const t = requireTeamBundle<{ teamHealth: typeof import('../team/entry.ts').teamHealth; readTeamConfig: (home: string) => import('../team/config.ts').TeamConfig | null }>();
  const cfg = t.readTeamConfig(store.home);
  return cfg ? t.teamHealth(store, cfg) : null;
}

/** dist/team.cjs, required on first use (a sibling of the bundle that calls this). */
export function requireTeamBundle<T = TeamBundle>(): T {
  return require('./team.cjs') as T;
}

/**
 * A refusal thrown inside dist/team.cjs is an instance of that bundle's own BatonError class:
 * made this bundle's, so the CLI prints its code and the server answers it as a refusal.
 */
export async function ownError<T>(p: () => Promise<T>): Promise<T> {
  try {
    return await p();
  } catch (e) {
    const x = e as { name?: string; code?: string; message?: string; details?: Record<string, unknown> };
    if (!(e instanceof BatonError) && x?.name === 'BatonError' && typeof x.code === 'string') throw new BatonError(x.code as never, String(x.message), x.details ?? {});
    throw e;
  }
}

/**
 * Whether a session is shared in team mode, from its marker (sessions/<id>/team.json) and the
 * home's team.json: 'owner' (owned here), 'replica' (owned elsewhere or released), or null.
 */
export function teamMode(store: FsStore, id: string): 'owner' | 'replica' | null {
  const m = readMarker(store.dir(id));
  if (!m || !fs.existsSync(join(store.home, 'team.json'))) return null;
  return m.owner === m.machine ? 'owner' : 'replica';
}

/**
 * Resume in team mode: a shared session another machine owned (or nobody, since its owner
 * released it) is taken first — pull everything, bump the epoch, end the foreign lease
 * (lock.released ownership_moved) — then the usual resume. Refusals before anything moves:
 * WS002 (archived), WS105 naming the owner when another machine still owns it, TM002 when the
 * database is unreachable. A session owned here, or not shared, resumes with no database.
 */
export async function resumeShared(store: FsStore, id: string, writer: Writer, o: { leaseMs: number; steal: boolean; workspace?: string }): Promise<Resumed & { team?: Taken }> {
  let team: Taken | undefined;
  if (teamMode(store, id) === 'replica') {
    if (store.view(id).view.archived) fail('WS002', `session ${id} is archived: it is read-only`, { session: id });
    const t = requireTeamBundle();
    team = await ownError(() => t.takeForResume(store, id));
  }
  const r = resumeSession(store, id, writer, o);
  return team ? { ...r, team } : r;
}

/**
 * Release in team mode: on a shared session owned here, connect first (TM002 with the lease
 * untouched when the database is unreachable), check this machine still owns it at the epoch
 * it knows (WS105 naming the new owner otherwise), release the lease, then push everything and
 * give ownership up in one transaction. A lease already gone (a release cut short) is not an
 * error: ownership is still given up. On a replica: WS105 naming the owner. Not shared: the
 * usual release.
 */
export async function releaseShared(store: FsStore, id: string, writer: Writer): Promise<{ id: string; seq: number; team?: { released: true; pushed: number } }> {
  const mode = teamMode(store, id);
  // A replica holds no lease and no ownership to give up: the owner is named (WS105).
  if (mode === 'replica') checkOwnership(store.dir(id), id);
  if (mode !== 'owner') return releaseSession(store, id, writer);
  const t = requireTeamBundle();
  const r = await ownError(() =>
    t.releaseForSession(store, id, () => {
      try {
        return releaseSession(store, id, writer);
      } catch (e) {
        // No lease left (a release interrupted after it): only ownership is still to give up.
        if ((e as { code?: string }).code === 'WS100') return null;
        throw e;
      }
    }),
  );
  return { id, seq: r.lease?.seq ?? store.view(id).scan.lastSeq, team: { released: true, pushed: r.pushed } };
}
