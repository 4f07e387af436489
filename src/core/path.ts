// path.join for the paths the store makes: its home (resolved once, so already normal) and the
// names under it. node:path's join normalises its result one character at a time in interpreted
// code; a prompt hook joins ~30 paths, ~2.4 M instructions and a Maglev compile of node:path's
// separator test (docs/adr/0076). When the parts joined with '/' are already an absolute normal
// path (no empty, '.' or '..' segment, no trailing '/'), that string is what path.join returns,
// and a few native substring searches tell; anything else goes to path.join.
import { join as nodeJoin, sep } from 'node:path';

const POSIX = sep === '/';

/** path.join(...parts), exactly. */
export function join(...parts: string[]): string {
  const r = parts.join('/');
  if (POSIX && parts[0]?.charCodeAt(0) === 47 && !r.includes('//') && !r.includes('/./') && !r.includes('/../') && !r.endsWith('/') && !r.endsWith('/.') && !r.endsWith('/..')) return r;
  return nodeJoin(...parts);
}
