// `session import` (exchange.md): an export (baton's or world-session-v1's) becomes a new
// session under a new id — `session.imported` first, then the origin's events re-sequenced,
// each keeping its ts, surface, actor, type and payload.
// Invariant: a refused import writes nothing. Pass 1 checks the archive whole (entries,
// sizes, digests, the log) and builds the new log in memory without touching the disk;
// pass 2 writes a hidden folder `sessions/.import-*`, fsyncs it, and renames it to the new id.
// What a crash leaves: at worst that hidden folder (no session: ids() skips dot-names).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type EventInput, MAX_LINE_BYTES, type StoredEvent, checkLine, encodeEvent } from '../core/events.ts';
import { generatedId } from '../core/ids.ts';
import { redactText, redactValue } from '../core/redact.ts';
import type { Workspace } from '../core/session.ts';
import { sha256Hex } from '../core/hash.ts';
import { isoMillis } from '../core/time.ts';
import { noteSessionChanged } from '../store/feed.ts';
import { DIR_MODE, FILE_MODE, ensureDir, fsyncDir } from '../store/fsutil.ts';
import { LOG_FILE } from '../store/log.ts';
import { ARTIFACT_NAME_RE } from '../store/operations.ts';
import { DEFAULT_ALLOWED, type FsStore, type Writer } from '../store/store.ts';
import { EXPORT_MANIFEST, type ExportManifest, type Layout, MAX_MANIFEST_BYTES, checkImportedEvent, parseManifest, refuse } from './format.ts';
import { WORLD_ROOT, parseEventsToml, readManifestToml } from './toml.ts';
import { type CheckedZip, type ZipItem, checkArchive } from './zip.ts';

export interface ImportOptions {
  title?: string;
  workspace: Workspace;
  maxSize: number;
  writer: Writer;
  onProgress?: (done: number, total: number) => void;
}

export interface ImportResult {
  id: string;
  origin_id: string;
  layout: Layout;
  digest: string;
  events: number;
  artifacts: number;
  contexts: number;
}

/** Where each kind of entry lives in the archive, by layout. */
interface Plan {
  layout: Layout;
  manifest: ExportManifest | null;
  digest: string;
  originId: string;
  title: string;
  log: ZipItem;
  /** Files to copy into the new session folder: archive item -> path inside the folder. */
  copies: { item: ZipItem; to: string; sha256: string | null }[];
}

/** Decides from the entry names and the manifest what the archive is; refuses what it is not. */
async function plan(zip: CheckedZip): Promise<Plan> {
  const byName = new Map(zip.files.map((f) => [f.name, f]));
  const manifestItem = byName.get(EXPORT_MANIFEST);
  let manifest: ExportManifest | null = null;
  let digest = '';
  if (manifestItem) {
    const bytes = await zip.read(manifestItem, MAX_MANIFEST_BYTES);
    manifest = parseManifest(bytes);
    digest = sha256Hex(bytes);
    const listed = new Map(manifest.entries.map((e) => [e.name, e]));
    for (const f of zip.files) {
      if (f === manifestItem) continue;
      const e = listed.get(f.name);
      if (!e) refuse(`entry ${JSON.stringify(f.name)} is not listed in ${EXPORT_MANIFEST}`, { entry: f.name, rule: 'unlisted entry' });
      if (f.size > e.size) refuse(`entry ${JSON.stringify(f.name)} is ${f.size} bytes, larger than the ${e.size} declared`, { entry: f.name, rule: 'entry larger than declared' });
      if (f.size !== e.size) refuse(`entry ${JSON.stringify(f.name)} is ${f.size} bytes, not the ${e.size} declared`, { entry: f.name, rule: 'digest mismatch' });
    }
    for (const name of listed.keys()) if (!byName.has(name)) refuse(`${EXPORT_MANIFEST} lists ${JSON.stringify(name)}, which the archive lacks`, { entry: name, rule: 'missing entry' });
  }
  const sha = (name: string): string | null => manifest?.entries.find((e) => e.name === name)?.sha256 ?? null;
  const worldLogs = zip.files.filter((f) => f.name.startsWith(`${WORLD_ROOT}/sessions/`) && /^[^/]+\/events\.toml$/.test(f.name.slice(WORLD_ROOT.length + 10)));
  const isWorld = manifest ? manifest.layout === 'world-session-v1' : worldLogs.length > 0;
  if (!manifest && !isWorld) refuse(`the archive has no ${EXPORT_MANIFEST} and no ${WORLD_ROOT}/ layout: not a baton export`, { rule: 'not an export' });
  const copies: Plan['copies'] = [];
  const take = (f: ZipItem, rel: string): void => {
    const [kind, name, ...rest] = rel.split('/');
    if (rest.length === 0 && name !== undefined && (kind === 'artifacts' || kind === 'contexts') && ARTIFACT_NAME_RE.test(name)) copies.push({ item: f, to: `${kind}/${name}`, sha256: sha(f.name) });
    else if (rel === 'retrospective.md') copies.push({ item: f, to: rel, sha256: sha(f.name) });
  };
  if (isWorld) {
    if (worldLogs.length !== 1) refuse(`a world-session-v1 export holds exactly one session; this one has ${worldLogs.length}`, { rule: 'not an export' });
    const base = worldLogs[0].name.slice(0, -'events.toml'.length);
    const originDir = base.slice(`${WORLD_ROOT}/sessions/`.length, -1);
    const mItem = byName.get(`${base}manifest.toml`);
    const info = readManifestToml(mItem ? (await zip.read(mItem, MAX_MANIFEST_BYTES)).toString('utf8') : null, `${base}manifest.toml`);
    for (const f of zip.files) if (f.name.startsWith(base)) take(f, f.name.slice(base.length));
    if (!manifest) digest = ''; // no manifest: the digest is the log's, set in pass 1
    return { layout: 'world-session-v1', manifest, digest, originId: manifest?.origin_id ?? info.id ?? originDir, title: manifest?.title ?? info.title ?? originDir, log: worldLogs[0], copies };
  }
  const log = byName.get('events.jsonl');
  if (!log) refuse(`the export has no events.jsonl`, { rule: 'not an export' });
  for (const f of zip.files) take(f, f.name);
  return { layout: 'baton', manifest, digest, originId: (manifest as ExportManifest).origin_id, title: (manifest as ExportManifest).title, log, copies };
}

/** The origin's events from the log entry: checked, contiguous from seq 1. */
function originEvents(p: Plan, bytes: Buffer): Omit<StoredEvent, 'h'>[] {
  const where = p.log.name;
  if (p.layout === 'world-session-v1') return parseEventsToml(bytes.toString('utf8'), where);
  const text = bytes.toString('utf8');
  if (text.length && !text.endsWith('\n')) refuse(`${where} does not end with a newline: a torn log`, { entry: where, rule: 'corrupt log' });
  const out: Omit<StoredEvent, 'h'>[] = [];
  let h = '';
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const line = text.slice(start, nl);
    start = nl + 1;
    const chk = checkLine(line, out.length + 1, h);
    if (!chk.ok) refuse(`${where} line ${out.length + 1}: ${chk.reason}`, { entry: where, line: out.length + 1, rule: 'corrupt log' });
    h = chk.event.h;
    out.push(checkImportedEvent(chk.event, `${where} line ${out.length + 1}`));
  }
  if (out.length === 0) refuse(`${where} holds no events`, { entry: where, rule: 'not an export' });
  return out;
}

export async function importArchive(store: FsStore, file: string, opts: ImportOptions): Promise<ImportResult> {
  const zip = await checkArchive(file, opts.maxSize);
  try {
    // Pass 1: nothing is written.
    const p = await plan(zip);
    let done = 0;
    const tick = (n: number): void => {
      done += n;
      opts.onProgress?.(done, zip.totalSize);
    };
    const expect = (item: ZipItem, got: string, want: string | null): void => {
      if (want !== null && got !== want) refuse(`entry ${JSON.stringify(item.name)} does not match its sha256 in ${EXPORT_MANIFEST}`, { entry: item.name, rule: 'digest mismatch' });
    };
    const logParts: Buffer[] = [];
    const logHash = createHash('sha256');
    await zip.pipe(p.log, (b) => {
      logParts.push(b);
      logHash.update(b);
      tick(b.length);
    });
    const logBytes = Buffer.concat(logParts);
    const logSha = logHash.digest('hex');
    expect(p.log, logSha, p.manifest?.entries.find((e) => e.name === p.log.name)?.sha256 ?? null);
    if (!p.manifest) p.digest = logSha;
    for (const c of p.copies) {
      const hash = createHash('sha256');
      await zip.pipe(c.item, (b) => {
        hash.update(b);
        tick(b.length);
      });
      expect(c.item, hash.digest('hex'), c.sha256);
    }
    const origin = originEvents(p, logBytes);
    const created = origin.find((e) => e.type === 'session.created');
    const allowed = Array.isArray(created?.payload.allowed_runtimes) ? (created.payload.allowed_runtimes as string[]) : DEFAULT_ALLOWED;
    const imported: EventInput = {
      type: 'session.imported',
      surface: opts.writer.surface,
      actor: opts.writer.actor,
      payload: {
        origin_id: p.originId,
        digest: p.digest,
        layout: p.layout,
        title: opts.title ?? p.title,
        workspace: opts.workspace,
        allowed_runtimes: allowed,
        created_by: opts.writer.surface,
        ...(p.manifest ? { exported_at: p.manifest.exported_at } : {}),
        ...(p.manifest?.workspace ? { origin_workspace: p.manifest.workspace } : {}),
        events: origin.length,
      },
    };
    const lines: string[] = [];
    let h = '';
    const put = (seq: number, ts: string, e: EventInput): void => {
      const enc = encodeEvent(seq, ts, { ...e, payload: redactValue(e.payload) }, h);
      if (Buffer.byteLength(enc.line) > MAX_LINE_BYTES) refuse(`event ${seq - 1} of the export is larger than 1 MiB as a line`, { rule: 'line too long', seq: seq - 1 });
      h = enc.h;
      lines.push(enc.line);
    };
    put(1, isoMillis(store.clock()), imported);
    let holder: unknown = null;
    for (const e of origin) {
      put(e.seq + 1, e.ts, { ...e, payload: shiftSeqRefs(e.type, e.payload) });
      if (e.type === 'lock.acquired') holder = e.payload.holder ?? null;
      else if (e.type === 'lock.released') holder = null;
    }
    // The origin's lease does not travel: a lease still open there is closed here, so no reader
    // (the index folds lock.* events) takes the copy for active.
    if (holder) put(origin.length + 2, isoMillis(store.clock()), { type: 'lock.released', surface: opts.writer.surface, actor: 'system', payload: { reason: 'expired', holder } });
    const newLog = Buffer.from(lines.join(''));
    lines.length = 0;

    // Pass 2: a hidden folder, then one rename.
    ensureDir(store.sessionsDir);
    const tmp = join(store.sessionsDir, `.import-${process.pid}-${Date.now().toString(36)}-${Math.floor(store.random() * 36 ** 6).toString(36)}`);
    try {
      // Inside the try: a full disk may refuse the folder itself (ENOSPC becomes WS206 in the CLI).
      fs.mkdirSync(tmp, { mode: DIR_MODE });
      writeDurable(join(tmp, LOG_FILE), newLog);
      for (const c of p.copies) {
        const dest = join(tmp, c.to);
        ensureDir(join(dest, '..'));
        const fd = fs.openSync(dest, 'wx', FILE_MODE);
        const hash = createHash('sha256');
        try {
          await zip.pipe(c.item, (b) => {
            hash.update(b);
            fs.writeSync(fd, b);
          });
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
        // The archive may have changed since pass 1: the bytes written must be the bytes checked.
        expect(c.item, hash.digest('hex'), c.sha256);
      }
      for (const sub of ['artifacts', 'contexts']) if (fs.existsSync(join(tmp, sub))) fsyncDir(join(tmp, sub));
      fsyncDir(tmp);
      // The id is made of the title as the log stores it (redacted), as `session new` does.
      const id = renameToNewId(store, tmp, redactText(opts.title ?? p.title), p.originId);
      fsyncDir(store.sessionsDir);
      noteSessionChanged(store.home, id);
      store.refreshProjections(id);
      return {
        id,
        origin_id: p.originId,
        layout: p.layout,
        digest: p.digest,
        events: origin.length,
        artifacts: p.copies.filter((c) => c.to.startsWith('artifacts/')).length,
        contexts: p.copies.filter((c) => c.to.startsWith('contexts/')).length,
      };
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
  } finally {
    zip.close();
  }
}

function writeDurable(path: string, data: Buffer): void {
  const fd = fs.openSync(path, 'wx', FILE_MODE);
  try {
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A fresh generated id (never the origin's): rename refuses a folder that exists, so re-roll. */
function renameToNewId(store: FsStore, tmp: string, title: string, originId: string): string {
  const now = store.clock().getTime();
  for (let attempt = 0; attempt < 20; attempt++) {
    const id = attempt === 0 ? generatedId(title, now) : generatedId(title, now, Math.floor(store.random() * 36 ** 4).toString(36).padStart(4, '0'));
    const dest = store.dir(id);
    if (id === originId || fs.existsSync(dest)) continue;
    try {
      fs.renameSync(tmp, dest);
      return id;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
    }
  }
  throw new Error('could not find a free session id for the import');
}

/**
 * The payload of an origin event whose fields cite other events of the same log by seq, each
 * cited seq moved one on with the log (session.imported takes seq 1): a changed transcript item's
 * `supersedes`, a rewrite's `prev_seq` and `redacts`, a resume's `from_seq` (0, "from the start",
 * stays 0). Other payloads are returned as they are.
 */
export function shiftSeqRefs(type: string, payload: Record<string, unknown>): Record<string, unknown> {
  const on = (v: unknown): unknown => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v + 1 : v);
  switch (type) {
    case 'transcript.item':
      return payload.supersedes === undefined ? payload : { ...payload, supersedes: on(payload.supersedes) };
    case 'context.rewritten':
      return { ...payload, prev_seq: on(payload.prev_seq), ...(Array.isArray(payload.redacts) ? { redacts: payload.redacts.map(on) } : {}) };
    case 'session.resumed':
      return { ...payload, from_seq: on(payload.from_seq) };
    default:
      return payload;
  }
}

