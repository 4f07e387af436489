// Helpers of the export/import tests: a zip written byte by byte (so a test can plant what
// yazl refuses to write: duplicate names, "..", absolute names, symlink and device entries,
// sizes that lie), a valid export built from scratch, and a reader for what an export holds.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { type EventInput, encodeEvent } from '../src/core/events.ts';

export interface RawEntry {
  name: string;
  data: Buffer;
  /** 0 stored (default), 8 deflated. */
  method?: 0 | 8;
  /** The decompressed size the headers declare (default: the real one). */
  declaredSize?: number;
  /** Unix mode for the external attributes (default 0o100644). */
  mode?: number;
}

/** A zip archive from raw entries, exactly as given: nothing is checked or fixed. */
export function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const body = e.method === 8 ? deflateRawSync(e.data) : e.data;
    const crc = crc32(e.data) >>> 0;
    const size = e.declaredSize ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(e.method ?? 0, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(e.method ?? 0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  if (entries.length < 0xffff) return Buffer.concat([...locals, cd, end]);
  // More entries than 16 bits count: the zip64 end record and its locator say how many.
  const z64 = Buffer.alloc(56);
  z64.writeUInt32LE(0x06064b50, 0);
  z64.writeBigUInt64LE(44n, 4);
  z64.writeUInt16LE((3 << 8) | 45, 12);
  z64.writeUInt16LE(45, 14);
  z64.writeBigUInt64LE(BigInt(entries.length), 24);
  z64.writeBigUInt64LE(BigInt(entries.length), 32);
  z64.writeBigUInt64LE(BigInt(cd.length), 40);
  z64.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([...locals, cd, z64, locator, end]);
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A chained events.jsonl of these events (seq from 1). */
export function chainedLog(events: (EventInput & { ts?: string })[]): Buffer {
  let h = '';
  let out = '';
  events.forEach((e, i) => {
    const enc = encodeEvent(i + 1, e.ts ?? `2026-05-27T07:0${i % 10}:00.000Z`, e, h);
    h = enc.h;
    out += enc.line;
  });
  return Buffer.from(out);
}

export const SAMPLE_EVENTS: EventInput[] = [
  { type: 'session.created', surface: 'cli', actor: 'user', payload: { title: 'Crafted', workspace: { name: 'ws', hash: '0123456789abcdef' }, allowed_runtimes: ['cli'], created_by: 'cli' } },
  { type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text: 'a note' } },
  { type: 'artifact.added', surface: 'cli', actor: 'agent', payload: { path: 'n.md', sha256: sha(Buffer.from('hi\n')) } },
];

/** The manifest an export carries for these entries. */
export function manifestFor(entries: { name: string; data: Buffer }[], extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      format: 'baton-export',
      version: 1,
      layout: 'baton',
      origin_id: 'crafted-1',
      title: 'Crafted',
      exported_at: '2026-05-27T08:00:00.000Z',
      baton_version: 'test',
      workspace: { name: 'ws', hash: '0123456789abcdef' },
      events: SAMPLE_EVENTS.length,
      last_seq: SAMPLE_EVENTS.length,
      partial: null,
      include: { contexts: false, prompts: false },
      entries: entries.map((e) => ({ name: e.name, size: e.data.length, sha256: sha(e.data) })),
      ...extra,
    }),
  );
}

/** The entries of a valid export (log, one artifact), manifest excluded. */
export function validEntries(): { name: string; data: Buffer }[] {
  return [
    { name: 'events.jsonl', data: chainedLog(SAMPLE_EVENTS) },
    { name: 'artifacts/n.md', data: Buffer.from('hi\n') },
  ];
}

/** A valid export as raw entries, the manifest last. */
export function validExport(): RawEntry[] {
  const entries = validEntries();
  return [...entries, { name: 'baton-export.json', data: manifestFor(entries) }];
}

/** Every entry of a zip: name, Unix mode and bytes. */
export function readZip(path: string): Promise<Map<string, { mode: number; data: Buffer }>> {
  return new Promise((res, rej) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return rej(err);
      const out = new Map<string, { mode: number; data: Buffer }>();
      zip.on('error', rej);
      zip.on('end', () => res(out));
      zip.on('entry', (e: yauzl.Entry) => {
        zip.openReadStream(e, (err2, s) => {
          if (err2) return rej(err2);
          const parts: Buffer[] = [];
          s.on('data', (b: Buffer) => parts.push(b));
          s.on('end', () => {
            out.set(e.fileName, { mode: e.externalFileAttributes >>> 16, data: Buffer.concat(parts) });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

export function writeZip(path: string, entries: RawEntry[]): string {
  fs.writeFileSync(path, rawZip(entries));
  return path;
}
