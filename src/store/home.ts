// Where the store is: --home, else $BATON_HOME, else ${XDG_STATE_HOME:-$HOME/.local/state}/baton,
// and whether baton may write there. Source of truth: the marker file `<home>/.baton-home`,
// written when baton makes the store (or adopts one an earlier version made, by its layout).
// A home that exists, holds other things and has no marker is refused (WS011) before anything
// is written, and so is the filesystem root. What a crash leaves: a store without its marker,
// adopted by its layout next time.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { join, resolve } from '../core/path.ts';
import { fail } from '../core/errors.ts';
import { nodeOs } from '../core/host.ts';
import { FILE_MODE, ensureDir, linkRefused } from './fsutil.ts';

export const HOME_MARKER = '.baton-home';

/** Names only baton puts at the top of a store: a folder holding one is a store of an earlier version. */
const STORE_LAYOUT = ['sessions', 'baton.db', 'index.feed', 'hooks', 'projects.json'];

export function resolveHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env.BATON_HOME) return resolve(env.BATON_HOME);
  const xdg = env.XDG_STATE_HOME || join(env.HOME || nodeOs().homedir(), '.local', 'state');
  return join(xdg, 'baton');
}

/**
 * The read side of claimHome: refuses, writing nothing, a home baton would refuse to write
 * (WS011: the root, a folder of other files without the marker; WS012: a file, a link to no
 * folder). A home that does not exist yet passes (a new store holds no sessions). Read
 * commands call it so that a mistyped `--home` is refused as a write would be, not answered
 * with "no sessions".
 */
export function checkHome(home: string): void {
  if (claimed.has(home)) return;
  if (dirname(home) === home) fail('WS011', `refusing ${home} as the store: the filesystem root is never a baton store; pick a folder of its own`, { home });
  const st = fs.statSync(home, { throwIfNoEntry: false });
  if (!st) {
    if (fs.lstatSync(home, { throwIfNoEntry: false })) fail('WS012', `${home} is a link to no folder`, { path: home });
    return;
  }
  if (!st.isDirectory()) fail('WS012', `${home} exists and is not a folder`, { path: home });
  if (fs.lstatSync(join(home, HOME_MARKER), { throwIfNoEntry: false })) return;
  let names: string[];
  try {
    names = fs.readdirSync(home);
  } catch {
    return;
  }
  if (names.length > 0 && !names.some((n) => STORE_LAYOUT.includes(n))) {
    fail('WS011', `refusing ${home} as the store: it exists, holds other files and has no ${HOME_MARKER} marker; pick an empty or new folder`, { home, marker: HOME_MARKER });
  }
}

/** Homes this process has checked (or made) already. */
const claimed = new Set<string>();

/**
 * Makes sure `home` is a store baton may write: creates it (with its marker) when missing,
 * marks an empty folder or an earlier version's store, refuses anything else (WS011), the
 * filesystem root included. Called before the first write a process makes at the top of a
 * store (a new session, the index, the hooks' hints); cheap after the first call.
 */
export function claimHome(home: string): void {
  if (claimed.has(home)) return;
  // The root is its own parent (dirname, not path.parse: the hook compiles one function less).
  if (dirname(home) === home) fail('WS011', `refusing ${home} as the store: the filesystem root is never a baton store; pick a folder of its own`, { home });
  const marker = join(home, HOME_MARKER);
  const st = fs.lstatSync(marker, { throwIfNoEntry: false });
  if (st?.isSymbolicLink()) linkRefused(marker);
  if (!st) {
    let names: string[] | null = null;
    try {
      names = fs.readdirSync(home);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (names && names.length > 0 && !names.some((n) => STORE_LAYOUT.includes(n))) {
      fail('WS011', `refusing ${home} as the store: it exists, holds other files and has no ${HOME_MARKER} marker; pick an empty or new folder`, { home, marker: HOME_MARKER });
    }
    ensureDir(home, { followLink: true });
    try {
      fs.closeSync(fs.openSync(marker, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, FILE_MODE));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  claimed.add(home);
}
