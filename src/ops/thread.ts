// What a surface shows of one session (the app server's thread/read, episode/list): its
// manifest, lease, pointer, open episodes and refs with their state, and its episodes with
// outcome and the digest of the start context each was given. Read-only, except that a
// missing manifest.json (a projection) is rebuilt from the log, as every reader does.
import type { EpisodeView } from '../core/session.ts';
import { happenedAt } from '../core/time.ts';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { loadEpisodes, type OpenEpisode } from '../hooks/episodes.ts';
import { isValid } from '../store/lease.ts';
import { pointerSummary, readManifest, type Manifest } from '../store/projections.ts';
import { refsNow } from '../store/refs.ts';
import { type ConflictEntry, conflictEntries } from '../store/replica.ts';
import type { FsStore } from '../store/store.ts';
import type { LockFile } from '../store/lease.ts';
import { nowJson } from './refs.ts';

export interface ThreadView {
  id: string;
  manifest: Manifest;
  lease: (LockFile & { valid: boolean }) | null;
  pointer: { status: string; revision: number } | null;
  openEpisodes: OpenEpisode[];
  refs: Record<string, unknown>[];
  workspaceOverride: string | null;
  /** Team mode: unresolved forks in conflicts/ (docs/team.md). */
  teamConflicts: ConflictEntry[];
}

export function describeThread(store: FsStore, id: string, workspaceOverride: string | null = null): ThreadView {
  const dir = store.dir(id);
  const manifest = readManifest(dir) ?? store.refreshProjections(id);
  const now = store.clock();
  const lock = store.lock(id);
  const pointer = pointerSummary(dir);
  return {
    id,
    manifest,
    lease: lock ? { ...lock, valid: isValid(lock, now.getTime()) } : null,
    pointer: pointer ? { status: pointer.status, revision: pointer.revision } : null,
    openEpisodes: loadEpisodes(dir).open,
    refs: refsNow(store, id, now).map(nowJson),
    workspaceOverride,
    teamConflicts: conflictEntries(dir),
  };
}

/** An episode as episode/list gives it: the session view's episode, its frozen context's digest and how it ended. */
export interface EpisodeRecord extends Omit<EpisodeView, 'context_file'> {
  context_digest: string | null;
  closed_seq: number | null;
  closed_at: string | null;
  outcome: string | null;
  reason: string | null;
}

/** The start context as frozen when the episode opened: its file without the closure appended at close. */
function contextDigest(dir: string, file: unknown): string | null {
  if (typeof file !== 'string' || file === '' || file.includes('..') || isAbsolute(file)) return null;
  let text: string;
  try {
    text = fs.readFileSync(join(dir, file), 'utf8');
  } catch {
    return null;
  }
  return createHash('sha256').update(frozenContext(text)).digest('hex');
}

/** A start context's file as it was when its episode opened: without the closure appended at close. */
export function frozenContext(text: string): string {
  const closed = text.lastIndexOf('## Closed\n\n- time: ');
  return closed >= 0 ? text.slice(0, closed) : text;
}

/** Every episode of a session in the order they opened (one pass over the log). */
export function listEpisodes(store: FsStore, id: string): EpisodeRecord[] {
  const dir = store.dir(id);
  const out: EpisodeRecord[] = [];
  const byId = new Map<string, EpisodeRecord>();
  store.events(id, 1, (ev) => {
    const p = ev.payload as Record<string, unknown>;
    if (ev.type === 'episode.opened') {
      const e: EpisodeRecord = {
        episode: String(p.episode ?? ''),
        provider: String(p.provider ?? ''),
        provider_session_id: String(p.provider_session_id ?? ''),
        source: String(p.source ?? ''),
        opened_seq: ev.seq,
        opened_at: happenedAt(ev),
        context_digest: contextDigest(dir, p.context_file),
        closed_seq: null,
        closed_at: null,
        outcome: null,
        reason: null,
        prompts: 0,
      };
      out.push(e);
      byId.set(e.episode, e);
    } else if (ev.type === 'episode.closed') {
      const e = byId.get(String(p.episode));
      if (e) {
        e.closed_seq = ev.seq;
        e.closed_at = happenedAt(ev);
        e.outcome = typeof p.outcome === 'string' ? p.outcome : null;
        e.reason = typeof p.reason === 'string' ? p.reason : null;
        e.prompts = Number(p.prompts) || e.prompts;
      }
    } else if (ev.type === 'prompt.submitted') {
      const e = byId.get(String(p.episode));
      if (e && e.closed_seq === null) e.prompts++;
    }
  });
  return out;
}
