// path.join and path.resolve for the paths the store makes: its home (resolved once, so already
// normal) and the names under it. node:path normalises its result one character at a time in
// interpreted code; a prompt hook joins ~30 paths, ~2.4 M instructions and a Maglev compile of
// node:path's separator test (docs/adr/0076). When the parts joined with '/' are already an
// absolute normal path (no empty, '.' or '..' segment, no trailing '/'), that string is what
// path.join and path.resolve return, and a few native substring searches tell; anything else
// goes to node:path.
import { join as nodeJoin, resolve as nodeResolve, sep } from 'node:path';

const POSIX = sep === '/';

/** `r` is an absolute POSIX path that node:path would return unchanged. */
const normalAbsolute = (r: string): boolean =>
  POSIX && r.charCodeAt(0) === 47 && !r.includes('//') && !r.includes('/./') && !r.includes('/../') && !r.endsWith('/') && !r.endsWith('/.') && !r.endsWith('/..');

/** path.join(...parts), exactly. */
export function join(...parts: string[]): string {
  const r = parts.join('/');
  // The first part absolute too: join('', 'a') is 'a', not '/a'.
  return parts[0]?.charCodeAt(0) === 47 && normalAbsolute(r) ? r : nodeJoin(...parts);
}

/** path.resolve(p), exactly (one path). */
export function resolve(p: string): string {
  return normalAbsolute(p) ? p : nodeResolve(p);
}
