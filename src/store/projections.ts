// Projections of the log: manifest.json and context.md (store.md). Rebuildable at any time,
// written atomically but without fsync. Never read back into the log.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import type { StoredEvent } from '../core/events.ts';
import { redactText } from '../core/redact.ts';
import { type SessionView, type Workspace, presentText } from '../core/session.ts';
import { touchedAfter } from '../core/time.ts';
import { fileKey, readFileOrNull, writeFileAtomic } from './fsutil.ts';
import { dropFd, heldFd } from './heldfd.ts';

export const MANIFEST_SCHEMA = 'baton-session-1';

export interface Manifest {
  id: string;
  title: string;
  schema: typeof MANIFEST_SCHEMA;
  created_by: string;
  created_at: string;
  task_id: string | null;
  parent_session: string | null;
  allowed_runtimes: string[];
  workspace: Workspace | null;
  status: { state: 'active' | 'suspended' | 'archived'; last_event_seq: number; last_writer: string; last_touched_at: string };
}

export function manifestFromView(v: SessionView, state: Manifest['status']['state']): Manifest {
  return {
    id: v.id,
    title: v.title,
    schema: MANIFEST_SCHEMA,
    created_by: v.created_by,
    created_at: v.created_at,
    task_id: v.task_id,
    parent_session: v.parent_session,
    allowed_runtimes: v.allowed_runtimes,
    workspace: v.workspace,
    status: { state, last_event_seq: v.last_seq, last_writer: v.last_writer, last_touched_at: v.last_touched_at },
  };
}

/** Applies appended events to a manifest that was current before them. */
export function patchManifest(m: Manifest, events: StoredEvent[], state: Manifest['status']['state']): Manifest {
  const out: Manifest = { ...m, status: { ...m.status } };
  for (const ev of events) {
    if (ev.type === 'session.titled') out.title = String(ev.payload.title);
    if (ev.type === 'session.updated') {
      if (typeof ev.payload.title === 'string') out.title = ev.payload.title;
      if ('task_id' in ev.payload) out.task_id = (ev.payload.task_id as string) ?? null;
      if (Array.isArray(ev.payload.allowed_runtimes)) out.allowed_runtimes = ev.payload.allowed_runtimes as string[];
    }
    out.status.last_event_seq = ev.seq;
    out.status.last_writer = ev.surface;
    out.status.last_touched_at = touchedAfter(out.status.last_touched_at, ev);
  }
  out.status.state = events.some((e) => e.type === 'session.archived') ? 'archived' : state;
  return out;
}

export function readManifest(dir: string): Manifest | null {
  const buf = readFileOrNull(join(dir, 'manifest.json'));
  if (!buf) return null;
  try {
    const m = JSON.parse(buf.toString('utf8')) as Manifest;
    return m && m.schema === MANIFEST_SCHEMA && m.status ? m : null;
  } catch {
    return null;
  }
}

/** A full rebuild replaces manifest.json atomically. */
export function writeManifest(dir: string, m: Manifest): void {
  writeFileAtomic(join(dir, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`);
}

/** The manifest this process last patched, per folder, under the file's key after that write. */
const ownManifests = new Map<string, { key: string; m: Manifest }>();

/**
 * After an append: patches manifest.json in place when it is the manifest of the seq just
 * before the events (no rename: see writeInPlace; a torn one is rebuilt by its reader).
 * While the file is still what this process last wrote, it is not read again (one stat).
 * `state` gives the lifecycle state from the current manifest. Returns false when the
 * manifest is absent, unreadable or not current: the caller rebuilds it.
 */
export function patchManifestAfterAppend(dir: string, events: StoredEvent[], state: (m: Manifest) => Manifest['status']['state']): boolean {
  const path = `${dir}/manifest.json`;
  const st = fs.statSync(path, { bigint: true, throwIfNoEntry: false });
  if (!st) return false;
  const own = ownManifests.get(dir);
  const m = own && own.key === fileKey(st) ? own.m : readManifest(dir);
  if (!m || m.status.last_event_seq !== events[0].seq - 1) return false;
  const next = patchManifest(m, events, state(m));
  const text = `${JSON.stringify(next, null, 2)}\n`;
  try {
    const { fd } = heldFd(path, fs.constants.O_WRONLY, st.ino);
    fs.writeSync(fd, text.padEnd(Number(st.size), ' '), 0, 'utf8');
    ownManifests.set(dir, { key: fileKey(fs.fstatSync(fd, { bigint: true })), m: next });
  } catch (e) {
    dropFd(path);
    throw e;
  }
  return true;
}

/**
 * The pointer as context.md and the retrospective show it (state.json read tolerantly; the
 * pointer module owns the format). The text is redacted again: a state written before the
 * publisher redacted must not carry its secrets into another file.
 */
export function pointerSummary(dir: string): { status: string; revision: number; text: string | null } | null {
  const buf = readFileOrNull(join(dir, 'state.json'));
  if (!buf) return null;
  try {
    const s = JSON.parse(buf.toString('utf8'));
    return { status: String(s.status), revision: Number(s.revision) || 0, text: typeof s.pointer_text === 'string' ? redactText(s.pointer_text) : null };
  } catch {
    return { status: 'CORRUPT', revision: 0, text: null };
  }
}

const CONTEXT_MARK_RE = /^<!-- baton:context session=(\S+) last_event_seq=(\d+) -->/;

export function contextMdSeq(dir: string): number | null {
  try {
    const fd = fs.openSync(join(dir, 'context.md'), 'r');
    try {
      const buf = Buffer.allocUnsafe(400); // only the n bytes read are used
      const n = fs.readSync(fd, buf, 0, 400, 0);
      const m = CONTEXT_MARK_RE.exec(buf.toString('utf8', 0, n));
      return m ? Number(m[2]) : null;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

export function renderContextMd(v: SessionView, state: string, pointer: ReturnType<typeof pointerSummary>): string {
  const lines: string[] = [];
  lines.push(`<!-- baton:context session=${v.id} last_event_seq=${v.last_seq} -->`);
  lines.push(`# ${v.title || v.id}`, '');
  lines.push(`- session: ${v.id}`);
  lines.push(`- state: ${state}`);
  if (v.task_id) lines.push(`- task: ${v.task_id}`);
  if (v.workspace) lines.push(`- workspace: ${v.workspace.cwd}${v.workspace.git_branch ? ` (${v.workspace.git_branch})` : ''}`);
  lines.push(`- last touched: ${v.last_touched_at} (seq ${v.last_seq})`, '');
  lines.push('## Pointer', '');
  if (pointer?.text) lines.push(`status ${pointer.status}, revision ${pointer.revision}`, '', '```text', pointer.text, '```', '');
  else lines.push(pointer ? `status ${pointer.status}, revision ${pointer.revision}, no text` : 'none published', '');
  lines.push('## Context', '');
  const recent = v.context.slice(-20);
  if (recent.length === 0) lines.push('no entries', '');
  for (const c of recent) {
    lines.push(`### seq ${c.seq} · ${c.ts}${c.tags.length ? ` · ${c.tags.join(', ')}` : ''}`, '', presentText(c.seq, c.text, v.redactions), '');
  }
  lines.push('## Artifacts', '');
  if (v.artifacts.size === 0) lines.push('none', '');
  else {
    for (const [name, a] of v.artifacts) lines.push(`- ${name} (sha256 ${a.sha256.slice(0, 12)})`);
    lines.push('');
  }
  lines.push('## Refs', '');
  if (v.refs.length === 0) lines.push('none', '');
  else {
    for (const r of v.refs) lines.push(`- from ${r.source} at version ${r.source_version}, digest ${r.digest}, expires ${r.expires_at}`);
    lines.push('');
  }
  lines.push('## Episode', '');
  if (v.open_episodes.length === 0) lines.push('none open', '');
  for (const e of v.open_episodes) lines.push(`- ${e.episode} open since ${e.opened_at} (${e.provider}, ${e.source})`);
  return `${lines.join('\n').trimEnd()}\n`;
}

export function writeContextMd(dir: string, v: SessionView, state: string): void {
  writeFileAtomic(join(dir, 'context.md'), renderContextMd(v, state, pointerSummary(dir)));
}
