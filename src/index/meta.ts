// The index's bookkeeping (the meta table): where the change feed was read up to, the
// sessions folder's mtime, when the next full stat sweep is due. Rebuildable like the rest.
import * as fs from 'node:fs';
import { feedPath } from '../store/feed.ts';
import type { Db } from './db.ts';

export function getMeta(db: Db): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]) out[r.key] = r.value;
  return out;
}

export function setMeta(db: Db, kv: Record<string, string>): void {
  const st = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
  for (const [k, v] of Object.entries(kv)) st.run(k, v);
}

export function feedState(home: string): { ino: string; size: number; mtime: string } {
  try {
    const st = fs.statSync(feedPath(home), { bigint: true });
    return { ino: String(st.ino), size: Number(st.size), mtime: String(st.mtimeNs) };
  } catch {
    return { ino: '', size: 0, mtime: '' };
  }
}
