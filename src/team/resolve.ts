// `team resolve ID`: a former owner's fork (sessions/<id>/conflicts/<file>) re-appended as
// content by the session's owner, one `context.appended` note per event citing where it came
// from, then the file moved to conflicts/resolved/ (nothing deleted). Local only: the next
// sync pushes the notes like any append. Who writes: the owner holding the lease, through the
// store's append (ownership, archive and lease checked there as for any write). What a crash
// leaves: notes appended and the file not yet moved — a rerun finds its notes by their tags
// (`conflict:<file>`, `h:<h>`) and appends only the missing ones, so none is appended twice.
import * as fs from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fail } from '../core/errors.ts';
import { type EventInput, MAX_LINE_BYTES } from '../core/events.ts';
import { ensureDir, fsyncDir } from '../store/fsutil.ts';
import { checkOwnership, conflictEntries } from '../store/replica.ts';
import type { FsStore, Writer } from '../store/store.ts';

/** Lease bookkeeping of the former owner: meaningless once ownership moved, so not re-appended (still in the moved file). */
const SKIPPED = /^lock\./;

export interface Resolved {
  file: string;
  moved_to: string;
  events: number;
  appended: number;
  /** Notes already in the log from an interrupted earlier run. */
  already: number;
  skipped: number;
}

/** Which files to resolve: `--conflict FILE` (a name, `conflicts/NAME` or the file's path) or `--all`. Refuses before anything is written. */
export function pickConflicts(store: FsStore, id: string, o: { conflict?: string; all?: boolean }): string[] {
  const dir = store.dir(id);
  const names = conflictEntries(dir).map((c) => basename(c.file));
  if (o.conflict !== undefined && o.all) fail('USAGE', 'give --conflict FILE or --all, not both');
  if (o.conflict === undefined && !o.all) {
    fail('USAGE', names.length ? `name the conflict to resolve: --conflict FILE (${names.join(', ')}) or --all` : `session ${id} has no conflict to resolve`, { conflicts: names });
  }
  if (names.length === 0) fail('TM004', `session ${id} has no conflict to resolve`, { session: id, conflicts: [] });
  if (o.all) return names;
  const arg = o.conflict as string;
  const name = basename(arg);
  const named = arg === name || arg === `conflicts/${name}` || resolve(arg) === join(dir, 'conflicts', name);
  if (!named || !names.includes(name)) {
    fail('TM004', `no conflict ${JSON.stringify(arg)} in session ${id}; its conflicts: ${names.join(', ')}`, { session: id, conflict: arg, conflicts: names });
  }
  return [name];
}

interface ForkedEvent {
  seq?: number;
  ts?: string;
  type?: string;
  surface?: string;
  actor?: string;
  payload?: Record<string, unknown>;
  h?: string;
}

const NOTE_ROOM = MAX_LINE_BYTES - 4096;

/** The note citing one forked event: its seq, h, type, time and origin, then its text (or its payload). */
export function noteFor(name: string, machine: string, epoch: number, raw: string): { input: EventInput; h: string; type: string } {
  let ev: ForkedEvent;
  try {
    ev = JSON.parse(raw) as ForkedEvent;
  } catch {
    ev = {};
  }
  const h = typeof ev.h === 'string' ? ev.h : '';
  const head = `Re-appended from conflicts/${name}: event seq ${ev.seq ?? '?'} (${ev.type ?? 'unreadable line'}, ${ev.ts ?? '?'}, ${ev.surface ?? '?'}/${ev.actor ?? '?'}, h ${h || '?'}) written on ${machine} at epoch ${epoch} after it lost ownership.`;
  const p = ev.payload;
  let body = ev.type === undefined ? raw : typeof p?.text === 'string' ? p.text : JSON.stringify(p ?? {});
  if (Buffer.byteLength(JSON.stringify(body), 'utf8') > NOTE_ROOM) {
    // A note is one line like any event (≤ 1 MiB); the whole event stays in conflicts/resolved/.
    while (Buffer.byteLength(JSON.stringify(body), 'utf8') > NOTE_ROOM) body = body.slice(0, Math.floor(body.length * 0.9));
    body += `\n[truncated: the whole event is in conflicts/resolved/${name}]`;
  }
  return {
    input: { type: 'context.appended', surface: 'cli', actor: 'user', payload: { text: `${head}\n\n${body}`, tags: ['team.conflict', `conflict:${name}`, `seq:${ev.seq ?? 0}`, `h:${h}`] } },
    h,
    type: ev.type ?? '',
  };
}

/** Tags `conflict:<name>` + `h:<h>` of the notes already in the log (an interrupted run's). */
function notesInLog(store: FsStore, id: string): Set<string> {
  const seen = new Set<string>();
  store.events(id, 1, (ev) => {
    if (ev.type !== 'context.appended') return;
    const tags = (ev.payload.tags as string[] | undefined) ?? [];
    if (!tags.includes('team.conflict')) return;
    const file = tags.find((t) => t.startsWith('conflict:'));
    const h = tags.find((t) => t.startsWith('h:'));
    if (file && h) seen.add(`${file}\0${h}`);
  });
  return seen;
}

/** Resolves the named conflict files of a session this machine owns, holding the lease. */
export function resolveConflicts(store: FsStore, id: string, writer: Writer, names: string[]): { session: string; resolved: Resolved[]; last_seq: number } {
  const dir = store.dir(id);
  checkOwnership(dir, id);
  // Refuses now (archived, runtime not allowed, no lease) what the append would refuse, before anything moves.
  store.locked(id, () => store.precheckUnderMutex(id, ['context.appended'], writer));
  const already = notesInLog(store, id);
  const out: Resolved[] = [];
  for (const name of names) {
    const [, epoch, machine] = /^(\d+)-(.*?)(?:~\d+)?\.jsonl$/.exec(name) ?? [name, '0', '?'];
    const path = join(dir, 'conflicts', name);
    const lines = fs.readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const kept = lines.map((raw) => noteFor(name, machine, Number(epoch), raw)).filter((n) => !SKIPPED.test(n.type));
    const due = kept.filter((n) => !(n.h && already.has(`conflict:${name}\0h:${n.h}`)));
    if (due.length) store.append(id, due.map((n) => n.input), writer);
    const movedTo = movedName(dir, name);
    ensureDir(join(dir, 'conflicts', 'resolved'));
    fs.renameSync(path, join(dir, 'conflicts', 'resolved', movedTo));
    fsyncDir(join(dir, 'conflicts'));
    fsyncDir(join(dir, 'conflicts', 'resolved'));
    out.push({ file: `conflicts/${name}`, moved_to: `conflicts/resolved/${movedTo}`, events: lines.length, appended: due.length, already: kept.length - due.length, skipped: lines.length - kept.length });
  }
  return { session: id, resolved: out, last_seq: store.view(id).scan.lastSeq };
}

/** The name in conflicts/resolved/: the same, or with .N before .jsonl if one of that name was resolved before. */
function movedName(dir: string, name: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : name.replace(/\.jsonl$/, `.${n}.jsonl`);
    if (!fs.existsSync(join(dir, 'conflicts', 'resolved', candidate))) return candidate;
  }
}
