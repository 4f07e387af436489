// Reading an archive someone else made, without trusting it (exchange.md, Import): yauzl
// checks names and that every entry inflates to exactly its declared size; this module adds
// the rest of the rules (entry count, symlink and device entries, duplicates, the size limits)
// and turns every failure into WS403 naming the entry and the rule. Reads only; writes nothing.
import * as fs from 'node:fs';
import yauzl from 'yauzl';
import { fail } from '../core/errors.ts';
import { BOMB_FACTOR, MAX_ENTRIES, checkEntryName, refuse } from './format.ts';

/** One file of an archive (a zip entry, or a file of an export folder). */
export interface ZipItem {
  name: string;
  size: number;
}

/** An archive whose entries were all checked; reading an entry checks its size again. */
export interface CheckedZip {
  path: string;
  /** Regular-file entries (folders are dropped: an export's files name their folders). */
  files: ZipItem[];
  /** Sum of the declared decompressed sizes. */
  totalSize: number;
  close(): void;
  /** Streams an entry's bytes to onChunk; the byte count must be the declared one (yauzl). */
  pipe(item: ZipItem, onChunk: (b: Buffer) => void): Promise<number>;
  read(item: ZipItem, limit: number): Promise<Buffer>;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: true, validateEntrySizes: true, decodeStrings: true }, (err, zip) => (err ? rej(err) : res(zip)));
  });
}

function entryRule(message: string): string {
  if (/absolute path/.test(message)) return 'an absolute path';
  if (/invalid relative path/.test(message)) return 'a ".." component';
  if (/invalid characters/.test(message)) return 'a backslash';
  return 'unreadable entry';
}

function reader(pipe: CheckedZip['pipe']): CheckedZip['read'] {
  return async (item, limit) => {
    if (item.size > limit) refuse(`entry ${JSON.stringify(item.name)} is ${item.size} bytes, over ${limit}`, { entry: item.name, rule: 'entry too large' });
    const parts: Buffer[] = [];
    await pipe(item, (b) => parts.push(b));
    return Buffer.concat(parts);
  };
}

/**
 * An export written as a folder (`export --to DIR`), checked by the same rules as a zip:
 * regular files and folders only (a symlink, device, FIFO or socket is refused), at most
 * MAX_ENTRIES, at most BOMB_FACTOR × maxSize bytes in all. A file that changes size while it
 * is read is refused like a zip entry that lies about its size.
 */
export function checkFolder(path: string, maxSize: number): CheckedZip {
  const files: ZipItem[] = [];
  let total = 0;
  let count = 0;
  const walk = (dir: string, rel: string): void => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const name = rel ? `${rel}/${d.name}` : d.name;
      checkEntryName(name);
      if (++count > MAX_ENTRIES) refuse(`the folder has more than ${MAX_ENTRIES} entries`, { rule: 'too many entries', limit: MAX_ENTRIES });
      const st = fs.lstatSync(`${dir}/${d.name}`);
      if (st.isSymbolicLink()) refuse(`entry ${JSON.stringify(name)} is a symbolic link`, { entry: name, rule: 'symlink entry' });
      if (st.isDirectory()) walk(`${dir}/${d.name}`, name);
      else if (st.isFile()) {
        total += st.size;
        if (total > BOMB_FACTOR * maxSize) refuse(`the folder holds more than ${BOMB_FACTOR} × ${maxSize} bytes (--max-size)`, { entry: name, rule: 'decompression bomb', limit_bytes: BOMB_FACTOR * maxSize });
        files.push({ name, size: st.size });
      } else refuse(`entry ${JSON.stringify(name)} is a device, FIFO or socket`, { entry: name, rule: 'device entry' });
    }
  };
  walk(path, '');
  const pipe = async (item: ZipItem, onChunk: (b: Buffer) => void): Promise<number> => {
    const fd = fs.openSync(`${path}/${item.name}`, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      let n = 0;
      for (;;) {
        const k = fs.readSync(fd, buf, 0, buf.length, null);
        if (k <= 0) break;
        n += k;
        if (n > item.size) refuse(`entry ${JSON.stringify(item.name)} grew past its ${item.size} bytes while read`, { entry: item.name, rule: 'entry larger than declared' });
        onChunk(Buffer.from(buf.subarray(0, k)));
      }
      if (n !== item.size) refuse(`entry ${JSON.stringify(item.name)} shrank below its ${item.size} bytes while read`, { entry: item.name, rule: 'digest mismatch' });
      return n;
    } finally {
      fs.closeSync(fd);
    }
  };
  return { path, files, totalSize: total, close() {}, pipe, read: reader(pipe) };
}

/** What the consumer of an entry's bytes threw, carried through the read's own error mapping. */
class SinkError extends Error {
  constructor(override readonly cause: unknown) {
    super('the sink of an entry failed');
  }
}

/** A zip file or an export folder, checked (WS403 for anything unsafe). */
export async function checkArchive(path: string, maxSize: number): Promise<CheckedZip> {
  let st: fs.Stats;
  try {
    st = fs.statSync(path);
  } catch (e) {
    return fail('USAGE', `cannot read ${path}: ${(e as Error).message}`);
  }
  return st.isDirectory() ? checkFolder(path, maxSize) : checkZip(path, maxSize);
}

/** Every entry of the central directory, checked; refuses (WS403) before any entry is read. */
export async function checkZip(path: string, maxSize: number): Promise<CheckedZip> {
  let st: fs.Stats;
  try {
    st = fs.statSync(path);
  } catch (e) {
    return fail('USAGE', `cannot read ${path}: ${(e as Error).message}`);
  }
  if (!st.isFile()) refuse(`${path} is not a file: not a baton export`, { rule: 'not an export' });
  if (st.size > maxSize) refuse(`${path} is ${st.size} bytes, over the limit of ${maxSize} (--max-size)`, { rule: 'archive too large', limit_bytes: maxSize });
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch (e) {
    return refuse(`${path} is not a zip archive (${(e as Error).message}): not a baton export`, { rule: 'not an export' });
  }
  const close = (): void => {
    try {
      zip.close();
    } catch {}
  };
  try {
    if (zip.entryCount > MAX_ENTRIES) refuse(`the archive has ${zip.entryCount} entries, more than ${MAX_ENTRIES}`, { rule: 'too many entries', limit: MAX_ENTRIES });
    const entries = await new Promise<yauzl.Entry[]>((res, rej) => {
      const list: yauzl.Entry[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        list.push(e);
        zip.readEntry();
      });
      zip.on('end', () => res(list));
      zip.on('error', (e: Error) => rej(e));
      zip.readEntry();
    }).catch((e: Error) => refuse(`unsafe or unreadable entry: ${e.message}`, { rule: entryRule(e.message) }));
    const seen = new Set<string>();
    const files: ZipItem[] = [];
    const entryOf = new Map<ZipItem, yauzl.Entry>();
    let total = 0;
    for (const e of entries) {
      const name = e.fileName;
      checkEntryName(name);
      const key = name.replace(/\/$/, '');
      if (seen.has(key)) refuse(`the archive holds ${JSON.stringify(key)} twice`, { entry: key, rule: 'duplicate name' });
      seen.add(key);
      const type = (e.externalFileAttributes >>> 16) & S_IFMT;
      if (type === S_IFLNK) refuse(`entry ${JSON.stringify(name)} is a symbolic link`, { entry: name, rule: 'symlink entry' });
      if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) refuse(`entry ${JSON.stringify(name)} is a device, FIFO or socket`, { entry: name, rule: 'device entry' });
      if (e.isEncrypted()) refuse(`entry ${JSON.stringify(name)} is encrypted`, { entry: name, rule: 'encrypted entry' });
      if (e.compressionMethod !== 0 && e.compressionMethod !== 8) refuse(`entry ${JSON.stringify(name)} uses compression method ${e.compressionMethod}`, { entry: name, rule: 'unsupported compression' });
      const isDir = name.endsWith('/') || type === S_IFDIR;
      if (isDir) {
        if (e.uncompressedSize !== 0) refuse(`folder entry ${JSON.stringify(name)} has content`, { entry: name, rule: 'folder with content' });
        continue;
      }
      total += e.uncompressedSize;
      if (total > BOMB_FACTOR * maxSize) {
        refuse(`the archive decompresses to more than ${BOMB_FACTOR} × ${maxSize} bytes (--max-size): refused as a decompression bomb`, { entry: name, rule: 'decompression bomb', limit_bytes: BOMB_FACTOR * maxSize });
      }
      const item = { name, size: e.uncompressedSize };
      files.push(item);
      entryOf.set(item, e);
    }
    const pipe = (item: ZipItem, onChunk: (b: Buffer) => void): Promise<number> =>
      new Promise((res, rej) => {
        zip.openReadStream(entryOf.get(item) as yauzl.Entry, (err, stream) => {
          if (err) return rej(err);
          let n = 0;
          let sinkFailed = false;
          stream.on('data', (b: Buffer) => {
            n += b.length;
            // What the sink throws (a full disk under an import) rejects this read with its own
            // error: thrown from a stream handler it would be an uncaught exception.
            try {
              onChunk(b);
            } catch (e) {
              sinkFailed = true;
              stream.destroy();
              rej(new SinkError(e));
            }
          });
          stream.on('error', (e) => {
            if (!sinkFailed) rej(e);
          });
          stream.on('end', () => res(n));
        });
      }).catch((e: Error) => {
        if (e instanceof SinkError) throw e.cause;
        if (e instanceof Error && /too many bytes|too few bytes|mismatch/.test(e.message)) {
          return refuse(`entry ${JSON.stringify(item.name)} does not hold its declared ${item.size} bytes (${e.message})`, { entry: item.name, rule: 'entry larger than declared' });
        }
        if (e && (e as { code?: string }).code === 'WS403') throw e;
        return refuse(`entry ${JSON.stringify(item.name)} cannot be read: ${(e as Error).message}`, { entry: item.name, rule: 'unreadable entry' });
      }) as Promise<number>;
    return { path, files, totalSize: total, close, pipe, read: reader(pipe) };
  } catch (e) {
    close();
    throw e;
  }
}
