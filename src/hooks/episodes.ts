// Episodes (hooks.md): one provider run inside a session, opened by the provider's start
// event and closed by its end event. Source of truth: episode.opened / episode.closed in
// the session's log. `episodes.json` beside the log is a cache of the open episodes (and
// their prompt counts) plus the log offset it has read up to, so the hook path never folds
// the whole log: each reader folds only the bytes appended since. Every decision and write
// happens under the session mutex. A crash leaves the cache behind the log, which the next
// reader catches up; a missing or unreadable cache is rebuilt from the log.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import type { EventInput, StoredEvent } from '../core/events.ts';
import { happenedAt, isoMillis } from '../core/time.ts';
import { LOG_FILE } from '../store/log.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { writeInPlace } from '../store/fsutil.ts';

export const EPISODE_INDEX = 'episodes.json';

export interface OpenEpisode {
  episode: string;
  provider: string;
  provider_session_id: string;
  source: string;
  opened_at: string;
  opened_seq: number;
  context_file: string | null;
  prompts: number;
}

export interface EpisodeIndex {
  v: 1;
  /** Bytes of events.jsonl folded into `open`. */
  offset: number;
  open: OpenEpisode[];
  /** The session's title; `auto` while it is the one a hook gave at creation (a first prompt may replace it). */
  title?: { text: string; auto: boolean } | null;
}

const emptyIndex = (): EpisodeIndex => ({ v: 1, offset: 0, open: [], title: null });

/** Folds one event into the open set (the same reading as core/session.ts). */
export function foldEpisodeEvent(idx: EpisodeIndex, ev: Pick<StoredEvent, 'type' | 'payload' | 'seq' | 'ts' | 'surface'>): void {
  const p = ev.payload ?? {};
  if (ev.type === 'session.created') {
    idx.title = { text: String(p.title ?? ''), auto: ev.surface.startsWith('hook:') };
  } else if ((ev.type === 'session.updated' && typeof p.title === 'string') || ev.type === 'session.titled') {
    idx.title = { text: String(p.title), auto: false };
  } else if (ev.type === 'episode.opened') {
    idx.open.push({
      episode: String(p.episode ?? ''),
      provider: String(p.provider ?? ''),
      provider_session_id: String(p.provider_session_id ?? ''),
      source: String(p.source ?? ''),
      opened_at: happenedAt(ev),
      opened_seq: ev.seq,
      context_file: typeof p.context_file === 'string' ? p.context_file : null,
      prompts: 0,
    });
  } else if (ev.type === 'episode.closed') {
    idx.open = idx.open.filter((e) => e.episode !== p.episode);
  } else if (ev.type === 'prompt.submitted') {
    const e = idx.open.find((x) => x.episode === p.episode);
    if (e) e.prompts++;
  }
}

function readIndexFile(dir: string): EpisodeIndex | null {
  try {
    const j = JSON.parse(fs.readFileSync(join(dir, EPISODE_INDEX), 'utf8')) as EpisodeIndex;
    // A cache from before titles were folded has no `title`: fold the log again, once.
    if (j && j.v === 1 && Number.isInteger(j.offset) && Array.isArray(j.open) && 'title' in j) return j;
  } catch {}
  return null;
}

/**
 * The open episodes of a session, current with its log: the cache plus whatever was
 * appended after its offset (only complete lines; stops at the first unparsable one).
 */
export function loadEpisodes(dir: string): EpisodeIndex {
  let idx = readIndexFile(dir) ?? emptyIndex();
  let fd: number;
  try {
    fd = fs.openSync(join(dir, LOG_FILE), 'r');
  } catch {
    return emptyIndex();
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size < idx.offset) idx = emptyIndex(); // the log was cut (repair): fold it again
    if (size === idx.offset) return idx;
    const buf = Buffer.allocUnsafe(size - idx.offset);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, idx.offset + got);
      if (n <= 0) break;
      got += n;
    }
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0 || nl >= got) break;
      const line = buf.toString('utf8', start, nl);
      if (line.includes('"type":"episode.') || line.includes('"type":"prompt.submitted"') || line.includes('"type":"session.')) {
        let ev: StoredEvent;
        try {
          ev = JSON.parse(line);
        } catch {
          break;
        }
        foldEpisodeEvent(idx, ev);
      }
      start = nl + 1;
    }
    idx.offset += start;
    return idx;
  } finally {
    fs.closeSync(fd);
  }
}

/** Rewrites the cache in place (no fsync, no rename: it is rebuilt from the log when lost). Caller holds the mutex. */
export function saveEpisodes(dir: string, idx: EpisodeIndex): void {
  try {
    idx.offset = fs.statSync(join(dir, LOG_FILE)).size;
    writeInPlace(join(dir, EPISODE_INDEX), JSON.stringify(idx));
  } catch {
    // Only a cache.
  }
}

/** `<provider>-<base36 ms>-<4 base36>`: unique, sortable by time, safe in a file name. */
export function newEpisodeId(provider: string, now: Date, random: () => number): string {
  const r = Math.floor(random() * 36 ** 4)
    .toString(36)
    .padStart(4, '0');
  return `${provider}-${now.getTime().toString(36)}-${r}`;
}

/** The file-name stamp of a frozen context: ISO time with `:` and `.` made safe. */
export function contextStamp(now: Date): string {
  return isoMillis(now).replace(/[:.]/g, '-');
}

export interface OpenSpec {
  provider: string;
  providerSessionId: string;
  source: string;
  transcriptPath?: string | null;
  model?: string | null;
  /** Writes the frozen start context for a new episode; returns its path inside the session folder. */
  freeze?: (episode: string) => string | null;
}

export interface OpenResult {
  opened: boolean;
  episode: OpenEpisode;
  events: StoredEvent[];
  /** The frozen context could not be written (the episode opened all the same). */
  contextError?: unknown;
}

/** Finds the open episode of a provider session. */
export function findOpen(idx: EpisodeIndex, provider: string, providerSessionId: string): OpenEpisode | undefined {
  return idx.open.find((e) => e.provider === provider && e.provider_session_id === providerSessionId);
}

/**
 * Opens an episode unless this provider session already has one open (start fires again on
 * resume and compaction: the open one stays open).
 */
export function openEpisode(store: FsStore, sessionId: string, spec: OpenSpec, writer: Writer, now: Date): OpenResult {
  const dir = store.dir(sessionId);
  const res = store.locked(sessionId, (): OpenResult => {
    const idx = loadEpisodes(dir);
    const existing = findOpen(idx, spec.provider, spec.providerSessionId);
    if (existing) return { opened: false, episode: existing, events: [] };
    const episode = newEpisodeId(spec.provider, now, store.random);
    let contextFile: string | null = null;
    let contextError: unknown;
    try {
      contextFile = spec.freeze ? spec.freeze(episode) : null;
    } catch (e) {
      contextError = e;
    }
    const payload: Record<string, unknown> = {
      episode,
      provider: spec.provider,
      provider_session_id: spec.providerSessionId,
      source: spec.source,
      context_file: contextFile,
    };
    if (spec.transcriptPath) payload.transcript_path = spec.transcriptPath;
    if (spec.model) payload.model = spec.model;
    const events = store.appendUnderMutex(sessionId, [{ type: 'episode.opened', surface: writer.surface, actor: writer.actor, payload }], writer);
    for (const ev of events) foldEpisodeEvent(idx, ev);
    saveEpisodes(dir, idx);
    return { opened: true, episode: findOpen(idx, spec.provider, spec.providerSessionId)!, events, contextError };
  });
  store.afterAppend(sessionId, res.events);
  return res;
}

export interface CloseResult {
  episode: OpenEpisode;
  reason: string;
  outcome: 'closed' | 'interrupted';
  duration_ms: number;
  prompts: number;
  events: StoredEvent[];
}

/**
 * Closes the chosen open episode; with none open, writes nothing and returns null.
 * `pick` chooses among the open episodes (a provider session's, or one named by hand).
 */
export function closeEpisode(
  store: FsStore,
  sessionId: string,
  pick: (open: OpenEpisode[]) => OpenEpisode | undefined,
  reason: string,
  outcomeFor: (ep: OpenEpisode) => 'closed' | 'interrupted',
  writer: Writer,
  now: Date,
): CloseResult | null {
  const dir = store.dir(sessionId);
  const res = store.locked(sessionId, (): CloseResult | null => {
    const idx = loadEpisodes(dir);
    const ep = pick(idx.open);
    if (!ep) return null;
    const outcome = outcomeFor(ep);
    const duration = Math.max(0, now.getTime() - Date.parse(ep.opened_at));
    const payload = { episode: ep.episode, reason, outcome, duration_ms: duration, prompts: ep.prompts };
    const events = store.appendUnderMutex(sessionId, [{ type: 'episode.closed', surface: writer.surface, actor: writer.actor, payload }], writer);
    for (const ev of events) foldEpisodeEvent(idx, ev);
    saveEpisodes(dir, idx);
    return { episode: ep, reason, outcome, duration_ms: duration, prompts: ep.prompts, events };
  });
  if (res) store.afterAppend(sessionId, res.events);
  return res;
}


/**
 * Queues prompt.submitted to ride along with the session's next append in this process
 * (FsStore.rideAlong): the open episode is read from the cache now, the cache is brought up
 * to date under the mutex once the event is written.
 */
/**
 * Queues the prompt to ride along with the session's next append. `retitle` names the
 * default title a hook gave this session and the title its first prompt gives: while the
 * session still carries exactly that default (nobody renamed it), one `session.titled`
 * rides along too. Read from the episode cache, so no log fold on the prompt path.
 */
export function queuePrompt(
  store: FsStore,
  sessionId: string,
  provider: string,
  providerSessionId: string,
  payload: Record<string, unknown>,
  writer: Writer,
  retitle?: { from: string; to: () => string | null },
): void {
  const dir = store.dir(sessionId);
  const idx = loadEpisodes(dir);
  const ep = findOpen(idx, provider, providerSessionId);
  const events: EventInput[] = [{ type: 'prompt.submitted', surface: writer.surface, actor: writer.actor, payload: { episode: ep?.episode ?? null, ...payload } }];
  // The new title is made (a redaction of the first line) only while the title is still the default one.
  const title = retitle && idx.title?.auto && idx.title.text === retitle.from ? retitle.to() : null;
  if (retitle && title && title !== retitle.from) {
    events.push({ type: 'session.titled', surface: writer.surface, actor: 'system', payload: { title, from: 'prompt' } });
  }
  store.rideAlong(sessionId, events, () => {
    saveEpisodes(dir, loadEpisodes(dir));
  });
}
