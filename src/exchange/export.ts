// `session export` (exchange.md): one session as a shareable zip — the log made shareable
// (format.ts), its artifacts (text redacted like the log, binary only on request), and on request its frozen contexts — with baton-export.json
// listing every entry's size and sha256, last. Reads the store, never writes it.
// What a crash leaves: the zip is written under a temporary name beside the target, fsync'd
// and renamed; a failure removes the temporary file, so no partial export is ever visible.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import yazl from 'yazl';
import { fail } from '../core/errors.ts';
import { encodeEvent } from '../core/events.ts';
import { emptyView, foldEvent } from '../core/session.ts';
import { sha256Hex } from '../core/hash.ts';
import { redactDefault } from '../core/redact.ts';
import { isoMillis } from '../core/time.ts';
import { DIR_MODE, FILE_MODE, ensureDir, fsyncDir, uniqueTempName } from '../store/fsutil.ts';
import { pointerSummary, renderContextMd } from '../store/projections.ts';
import type { FsStore } from '../store/store.ts';
import {
  EXPORT_FORMAT,
  EXPORT_MANIFEST,
  EXPORT_VERSION,
  type ExportEntry,
  type ExportManifest,
  type Layout,
  type ShareRules,
  anonymousWorkspace,
  pathRules,
  rewritePaths,
  shareEvent,
} from './format.ts';
import { WORLD_ROOT, eventToml, indexToml, manifestToml, sessionPath } from './toml.ts';

export interface ExportOptions {
  layout: Layout;
  /** The zip to write (must not exist). */
  out?: string;
  /** world-session-v1 only: write the layout into this new folder instead of a zip. */
  to?: string;
  includeContexts?: boolean;
  includePrompts?: boolean;
  /** Ship binary artifacts (not UTF-8 text) as they are; by default they are left out and named. */
  includeBinary?: boolean;
  /** Export the verified prefix of a corrupt log instead of refusing (WS201). */
  force?: boolean;
  /** The user's home folder, written as `~`. */
  userHome: string | null;
  /** More local paths and what replaces them (this node, this baton). */
  localPaths?: { prefix: string; as: string }[];
  batonVersion: string;
  now: Date;
  onProgress?: (done: number, total: number) => void;
}

export interface ExportResult {
  id: string;
  layout: Layout;
  file: string | null;
  dir: string | null;
  digest: string;
  events: number;
  entries: number;
  bytes: number;
  partial: ExportManifest['partial'];
  torn: boolean;
  /** Every current artifact: what kind it is, whether it went out, how many secrets were redacted in it. */
  artifacts: ArtifactReport[];
}

export interface ArtifactReport {
  name: string;
  /** `text`: well-formed UTF-8 without NUL, redacted like an event; `binary`: anything else. */
  kind: 'text' | 'binary';
  /** false: a binary artifact left out (`--include-binary` ships it). */
  shipped: boolean;
  /** Secrets replaced by `<redacted>` in what was shipped (0 for binary). */
  redacted: number;
  /** The bytes shipped (0 when left out). */
  bytes: number;
}

/** A text artifact larger than this is not read whole to be redacted: it counts as binary. */
export const TEXT_ARTIFACT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * An artifact as it may leave the machine: text (well-formed UTF-8, no NUL) is redacted with the
 * default rules, as every event was; anything else is binary, shipped verbatim only when asked.
 */
function shareArtifact(name: string, file: string, size: number, includeBinary: boolean): { report: ArtifactReport; data: Buffer | null } {
  if (size <= TEXT_ARTIFACT_MAX_BYTES) {
    const bytes = fs.readFileSync(file);
    if (!bytes.includes(0) && isUtf8(bytes)) {
      const r = redactDefault(bytes.toString('utf8'));
      const data = r.count > 0 ? Buffer.from(r.text) : bytes;
      return { report: { name, kind: 'text', shipped: true, redacted: r.count, bytes: data.length }, data };
    }
  }
  return { report: { name, kind: 'binary', shipped: includeBinary, redacted: 0, bytes: includeBinary ? size : 0 }, data: null };
}

/** One entry of the export: bytes in memory, or a file streamed from the session folder. */
type Source = { name: string; data: Buffer } | { name: string; file: string; size: number };

export async function exportSession(store: FsStore, id: string, opts: ExportOptions): Promise<ExportResult> {
  if (opts.to && opts.layout !== 'world-session-v1') fail('USAGE', '--to writes the world-session-v1 layout: add --format world-session-v1, or use --out for a zip');
  if (opts.out && opts.to) fail('USAGE', 'give --out or --to, not both');
  const target = opts.to ?? opts.out ?? join(process.cwd(), `${id}${opts.layout === 'world-session-v1' ? '.world-session' : ''}.zip`);
  if (fs.existsSync(target)) fail('USAGE', `${target} exists: remove it or choose another --out`, { target });
  if (!fs.existsSync(dirname(target))) fail('USAGE', `the folder of ${target} does not exist`, { target });
  const dir = store.dir(id);

  // Pass 1: the whole log folded (redactions and workspace come from anywhere in it), chain checked.
  const view = emptyView(id);
  let createdTitle = id;
  const scan = store.events(id, 1, (ev) => {
    if (ev.type === 'session.created' && typeof ev.payload.title === 'string') createdTitle = ev.payload.title;
    foldEvent(view, ev);
  });
  if (scan.corrupt && !opts.force) {
    fail('WS201', `events log of ${id} is corrupt at line ${scan.corrupt.line} (${scan.corrupt.reason}): nothing exported; --force exports the ${scan.lastSeq} verified events`, {
      line: scan.corrupt.line,
      verified_to_seq: scan.lastSeq,
    });
  }
  const partial = scan.corrupt ? { verified_to_seq: scan.lastSeq, corrupt_line: scan.corrupt.line, reason: scan.corrupt.reason } : null;
  const rules: ShareRules = { redactions: view.redactions, paths: pathRules(view.workspace, opts.userHome, opts.localPaths), prompts: !!opts.includePrompts, createdTitle };

  // The artifacts as they will ship, before the log: an event's sha256 of a redacted artifact
  // is rewritten to the digest of what ships, so the imported session's events describe its files.
  const artifactReports: ArtifactReport[] = [];
  const artifactSources: { name: string; data: Buffer | null; file: string; size: number }[] = [];
  const shippedSha = new Map<string, string>();
  for (const [name, a] of [...view.artifacts.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
    const file = join(dir, 'artifacts', name);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    const { report, data } = shareArtifact(name, file, st.size, !!opts.includeBinary);
    artifactReports.push(report);
    if (!report.shipped) continue;
    artifactSources.push({ name, data, file, size: st.size });
    if (data && report.redacted > 0 && a.sha256) shippedSha.set(a.sha256, sha256Hex(data));
  }
  rules.artifactSha = shippedSha;

  // Pass 2: the shareable log, re-chained so the export is checkable on its own.
  const logBytes = fs.statSync(join(dir, 'events.jsonl')).size;
  const shared = emptyView(id);
  const chunks: string[] = [];
  let pending = '';
  let h = '';
  let done = 0;
  let nEvents = 0;
  const world = opts.layout === 'world-session-v1';
  store.events(id, 1, (ev, raw) => {
    if (ev.seq > scan.lastSeq) return;
    const out = shareEvent(ev, rules);
    foldEvent(shared, out);
    nEvents++;
    if (world) pending += eventToml(out);
    else {
      const enc = encodeEvent(out.seq, out.ts, out, h);
      h = enc.h;
      pending += enc.line;
    }
    if (pending.length > 1 << 20) {
      chunks.push(pending);
      pending = '';
    }
    done += raw.length + 1;
    opts.onProgress?.(done, logBytes);
  });
  chunks.push(pending);
  const log = Buffer.from(chunks.join(''));
  chunks.length = 0;

  const sources: Source[] = [];
  const prefix = world ? `${WORLD_ROOT}/sessions/${id}/` : '';
  if (world) {
    const state = shared.archived ? 'archived' : store.lifecycle(id, false) === 'active' ? 'active' : 'suspended';
    sources.push({ name: `${WORLD_ROOT}/index.toml`, data: Buffer.from(indexToml([{ id, title: view.title, state, last_event_seq: shared.last_seq }])) });
    sources.push({
      name: sessionPath(id, 'manifest.toml'),
      data: Buffer.from(
        manifestToml({
          id,
          title: view.title,
          created_by: shared.created_by,
          created_at: shared.created_at,
          task_id: shared.task_id,
          parent_session: shared.parent_session,
          allowed_runtimes: shared.allowed_runtimes,
          state,
          last_event_seq: shared.last_seq,
          last_writer: shared.last_writer,
          last_touched_at: shared.last_touched_at,
        }),
      ),
    });
    sources.push({ name: sessionPath(id, 'events.toml'), data: log });
    const pointer = pointerSummary(dir);
    const ctx = renderContextMd({ ...shared, workspace: null }, state, pointer ? { ...pointer, text: pointer.text === null ? null : rewritePaths(pointer.text, rules.paths) } : null);
    sources.push({ name: sessionPath(id, 'context.md'), data: Buffer.from(ctx) });
  } else sources.push({ name: 'events.jsonl', data: log });
  for (const a of artifactSources) {
    if (a.data) sources.push({ name: `${prefix}artifacts/${a.name}`, data: a.data });
    else sources.push({ name: `${prefix}artifacts/${a.name}`, file: a.file, size: a.size });
  }
  if (opts.includeContexts) {
    for (const name of listFiles(join(dir, 'contexts'))) {
      const text = fs.readFileSync(join(dir, 'contexts', name), 'utf8');
      sources.push({ name: `${prefix}contexts/${name}`, data: Buffer.from(rewritePaths(text, rules.paths)) });
    }
  }
  if (shared.archived && shared.retrospective === 'retrospective.md' && fs.existsSync(join(dir, 'retrospective.md'))) {
    sources.push({ name: `${prefix}retrospective.md`, data: Buffer.from(rewritePaths(fs.readFileSync(join(dir, 'retrospective.md'), 'utf8'), rules.paths)) });
  }

  const manifestOf = (entries: ExportEntry[]): Buffer => {
    const m: ExportManifest = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      layout: opts.layout,
      origin_id: id,
      title: view.title,
      exported_at: isoMillis(opts.now),
      baton_version: opts.batonVersion,
      workspace: anonymousWorkspace(view.workspace),
      events: nEvents,
      last_seq: shared.last_seq,
      partial,
      include: { contexts: !!opts.includeContexts, prompts: !!opts.includePrompts },
      entries,
    };
    return Buffer.from(`${JSON.stringify(m, null, 2)}\n`);
  };

  const written = opts.to ? await writeFolder(opts.to, sources, manifestOf, opts.now) : await writeZip(target, sources, manifestOf, opts.now);
  return {
    id,
    layout: opts.layout,
    file: opts.to ? null : target,
    dir: opts.to ?? null,
    digest: sha256Hex(written.manifest),
    events: nEvents,
    entries: sources.length + 1,
    bytes: written.bytes,
    partial,
    torn: !!scan.torn,
    artifacts: artifactReports,
  };
}

function listFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isFile() && !d.name.startsWith('.'))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/** Streams every source into a zip under a temporary name, the manifest last; fsync; rename. */
async function writeZip(target: string, sources: Source[], manifestOf: (e: ExportEntry[]) => Buffer, now: Date): Promise<{ manifest: Buffer; bytes: number }> {
  const tmp = uniqueTempName(dirname(target), basename(target));
  const zip = new yazl.ZipFile();
  const opts = { mtime: now, mode: 0o100600 };
  const entries: ExportEntry[] = [];
  const sink = fs.createWriteStream(tmp, { flags: 'wx', mode: FILE_MODE });
  const finished = new Promise<void>((res, rej) => {
    sink.on('close', res);
    sink.on('error', rej);
    zip.outputStream.on('error', rej);
  });
  zip.outputStream.pipe(sink);
  try {
    const consumed: Promise<void>[] = [];
    for (const s of sources) {
      if ('data' in s) {
        entries.push({ name: s.name, size: s.data.length, sha256: sha256Hex(s.data) });
        zip.addBuffer(s.data, s.name, opts);
      } else {
        // Hashed as yazl reads it: the bytes listed are the bytes zipped.
        const hash = createHash('sha256');
        const entry: ExportEntry = { name: s.name, size: 0, sha256: '' };
        entries.push(entry);
        const input = fs.createReadStream(s.file);
        let pass!: Transform;
        consumed.push(
          new Promise((res, rej) => {
            input.on('error', rej);
            pass = new Transform({
              transform(b: Buffer, _enc, cb) {
                hash.update(b);
                entry.size += b.length;
                cb(null, b);
              },
              flush(cb) {
                entry.sha256 = hash.digest('hex');
                res();
                cb();
              },
            });
          }),
        );
        input.pipe(pass);
        zip.addReadStream(pass, s.name, opts);
      }
    }
    await Promise.all(consumed);
    const manifest = manifestOf(entries);
    zip.addBuffer(manifest, EXPORT_MANIFEST, opts);
    zip.end();
    await finished;
    const fd = fs.openSync(tmp, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
    fsyncDir(dirname(target));
    return { manifest, bytes: fs.statSync(target).size };
  } catch (e) {
    sink.destroy();
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** The world-session-v1 layout as files: a temporary folder beside the target, renamed into place. */
async function writeFolder(target: string, sources: Source[], manifestOf: (e: ExportEntry[]) => Buffer, _now: Date): Promise<{ manifest: Buffer; bytes: number }> {
  const tmp = uniqueTempName(dirname(target), basename(target));
  fs.mkdirSync(tmp, { mode: DIR_MODE });
  try {
    const entries: ExportEntry[] = [];
    let bytes = 0;
    const put = (name: string, data: Buffer): void => {
      const path = join(tmp, name);
      ensureDir(dirname(path));
      const fd = fs.openSync(path, 'wx', FILE_MODE);
      try {
        fs.writeSync(fd, data);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      bytes += data.length;
    };
    for (const s of sources) {
      const data = 'data' in s ? s.data : fs.readFileSync(s.file);
      entries.push({ name: s.name, size: data.length, sha256: sha256Hex(data) });
      put(s.name, data);
    }
    const manifest = manifestOf(entries);
    put(EXPORT_MANIFEST, manifest);
    fs.renameSync(tmp, target);
    fsyncDir(dirname(target));
    return { manifest, bytes };
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

