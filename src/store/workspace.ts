// Workspace origin: the real path of a directory, its git root and branch when it has one.
// Reads .git directly (no `git` process: this runs on the hook path).
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Workspace } from '../core/session.ts';

function gitDirOf(root: string): string | null {
  const dotgit = join(root, '.git');
  try {
    const st = fs.statSync(dotgit);
    if (st.isDirectory()) return dotgit;
    const m = /^gitdir:\s*(.+)\s*$/m.exec(fs.readFileSync(dotgit, 'utf8'));
    return m ? resolve(root, m[1]) : null;
  } catch {
    return null;
  }
}

export function realDir(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

export function describeWorkspace(cwd: string): Workspace {
  const real = realDir(cwd);
  const ws: Workspace = { cwd: real };
  let d = real;
  for (;;) {
    const gd = gitDirOf(d);
    if (gd) {
      ws.git_root = d;
      try {
        const head = fs.readFileSync(join(gd, 'HEAD'), 'utf8').trim();
        const m = /^ref: refs\/heads\/(.+)$/.exec(head);
        if (m) ws.git_branch = m[1];
      } catch {}
      break;
    }
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return ws;
}
