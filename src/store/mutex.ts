// The per-session cross-process mutex: a `.mutex` file that exists only while someone holds
// it, held for milliseconds around a log append or a pointer CAS (docs/adr/0002).
// Source of truth: the name's existence. Who may write: whoever made it.
// Taking it: a process keeps a parked token of its own per session folder,
// `.mutex.h<host tag>.<pid>.<nonce>`, writes "pid host time nonce.gen" into it and link()s it
// to `.mutex` — link fails with EEXIST while another holds it, and allocates no inode, which
// made an append ~15% faster than creating and deleting a file each time. Where hard links are
// not supported, `.mutex` is created with O_EXCL instead. Releasing: unlink `.mutex`; the
// parked token is removed at exit.
// A crash leaves `.mutex` behind: a holder that is dead (same host, pid gone) or that has
// held it longer than STALE_MS (by ctime, which link and write both set) is broken by renaming
// the name aside; a breaker checks that what it moved aside is the stale lock it saw and puts
// back anything else. An O_EXCL holder killed between its create and its write leaves an
// empty file: stale after EMPTY_GRACE_MS. Parked tokens of dead processes on this host are
// swept by the next process that parks one in the folder. A holder that was slow enough that
// its hold could have been broken checks by inode that the name is still its own before it
// unlinks it, so it never unlinks a successor's.
import * as fs from 'node:fs';
import { errnoError, fail } from '../core/errors.ts';
import { hostName } from '../core/host.ts';
import { sleepSync } from '../core/sleep.ts';
import { FILE_MODE, sweepFolder } from './fsutil.ts';

const STALE_MS = 10_000;
const EMPTY_GRACE_MS = 1_000;
export const DEFAULT_MUTEX_TIMEOUT_MS = 5_000;
const HOST = hostName();

/** Whether a process of this host is running (EPERM: it is, someone else's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(content: string, ctimeMs: number, now: number): boolean {
  if (now - ctimeMs > STALE_MS) return true;
  if (!content) return now - ctimeMs > EMPTY_GRACE_MS;
  const [pid, host] = content.split(' ');
  return host === HOST && Number(pid) > 0 && Number(pid) !== process.pid && !pidAlive(Number(pid));
}

// --- parked tokens --------------------------------------------------------------------

/** A short tag of this host's name for file names (parked tokens, staged sessions). */
export const HOST_TAG = `h${(() => {
  let h = 0x811c9dc5;
  for (let i = 0; i < HOST.length; i++) h = Math.imul(h ^ HOST.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
})()}`;
const NONCE = Math.random().toString(36).slice(2, 10);
const TOKEN_PREFIX = `.mutex.${HOST_TAG}.`;
const TOKEN_BYTES = 96;
const MAX_PARKED = 32;

interface Parked {
  path: string;
  fd: number;
  ino: bigint;
  gen: number;
}

const parked = new Map<string, Parked>();
/** Folders whose mutex this process holds right now: since when, and the inode it holds. */
const holding = new Map<string, { since: number; ino: bigint }>();
/** BATON_MUTEX_NO_LINKS=1 forces O_EXCL files, for a filesystem whose link() cannot be trusted. */
let linksUnsupported = process.env.BATON_MUTEX_NO_LINKS === '1';
let exitHooked = false;

/**
 * For a process that takes a session's mutex once or twice and exits (a hook): `.mutex` is
 * created with O_EXCL, as where links are refused, instead of parking a token. A token pays
 * off over many appends; for one it costs a read of the folder (the sweep), a link, and an
 * unlink at exit on top of the create (docs/adr/0018). Both ways make the name `.mutex`
 * exclusively, so processes of either kind exclude each other as before.
 */
export function takeMutexByCreate(): void {
  linksUnsupported = true;
}

function parkedFor(dir: string): Parked {
  const hit = parked.get(dir);
  if (hit) return hit;
  sweepDeadTokens(dir);
  const path = `${dir}/${TOKEN_PREFIX}${process.pid}.${NONCE}`;
  const fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, FILE_MODE);
  const p: Parked = { path, fd, ino: fs.fstatSync(fd, { bigint: true }).ino, gen: 0 };
  parked.set(dir, p);
  if (parked.size > MAX_PARKED) unpark(parked.keys().next().value as string);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const d of [...parked.keys()]) unpark(d);
    });
  }
  return p;
}

function unpark(dir: string): void {
  const p = parked.get(dir);
  if (!p) return;
  parked.delete(dir);
  try {
    fs.closeSync(p.fd);
  } catch {}
  try {
    fs.unlinkSync(p.path);
  } catch {}
}

/** Removes the parked tokens that processes on this host left when they died. */
function sweepDeadTokens(dir: string): void {
  sweepFolder(dir, (n) => {
    if (!n.startsWith(TOKEN_PREFIX)) return false;
    const pid = Number(n.slice(TOKEN_PREFIX.length).split('.')[0]);
    return pid > 0 && pid !== process.pid && !pidAlive(pid);
  });
}

/** link() refusals that mean this filesystem has no hard links (not "somebody holds it"). */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'EXDEV', 'ENOSYS']);

function tryBreak(path: string, content: string): void {
  const aside = `${path}.broken.${process.pid}.${Math.random().toString(36).slice(2, 8)}`;
  try {
    fs.renameSync(path, aside);
  } catch {
    return; // somebody else broke or released it
  }
  let moved = '';
  try {
    moved = fs.readFileSync(aside, 'utf8');
  } catch {}
  if (moved !== content) {
    // We moved a live lock taken between our read and our rename: give it back.
    try {
      fs.linkSync(aside, path);
    } catch {}
  }
  try {
    fs.unlinkSync(aside);
  } catch {}
}

export interface MutexOptions {
  timeoutMs?: number;
}

export function withMutex<T>(dir: string, fn: () => T, opts: MutexOptions = {}): T {
  const path = `${dir}/.mutex`;
  const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_MUTEX_TIMEOUT_MS);
  let wait = 1;
  let fd = -1;
  let held: Parked | null = null;
  let takenAt = 0;
  for (;;) {
    takenAt = Date.now();
    if (!linksUnsupported) {
      let p: Parked;
      try {
        p = parkedFor(dir);
        fs.writeSync(p.fd, `${process.pid} ${HOST} ${takenAt} ${NONCE}.${++p.gen}`.padEnd(TOKEN_BYTES, ' '), 0, 'utf8');
      } catch (e) {
        // No room for the token (a full disk): WS206, as any other write.
        throw errnoError(e, `cannot write the session mutex token in ${dir}`) ?? e;
      }
      try {
        fs.linkSync(p.path, path);
        held = p;
        break;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? '';
        if (code === 'ENOENT') {
          // Our parked token was removed (or the folder was): park a new one, or fail as a create would.
          unpark(dir);
          if (!fs.existsSync(dir)) throw e;
          continue;
        }
        if (NO_LINKS.has(code)) {
          linksUnsupported = true;
          unpark(dir);
          continue;
        }
        if (code !== 'EEXIST') throw e;
        if (!holding.has(dir) && inodeAt(path) === p.ino) {
          // `.mutex` is our own token from a hold whose release could not unlink it: no one
          // else can break it (our token is fresh and our pid alive), so we clear it.
          try {
            fs.unlinkSync(path);
          } catch {}
          continue;
        }
      }
    } else {
      const token = `${process.pid} ${HOST} ${takenAt} ${NONCE}`;
      try {
        fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, FILE_MODE);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      if (fd >= 0) {
        // An empty file is broken only EMPTY_GRACE_MS after its creation: a token written well
        // within that needs no second look; a slower one checks the name is still its file.
        try {
          fs.writeSync(fd, token);
          if (Date.now() - takenAt < EMPTY_GRACE_MS / 2 || inodeAt(path) === fs.fstatSync(fd, { bigint: true }).ino) break;
        } catch (e) {
          // The token could not be written (a full disk: WS206): take our empty file back and
          // say so, rather than wait on our own leftover until the timeout (issue 28.9).
          const failure = errnoError(e, `cannot write the session mutex ${path}`);
          if (failure) {
            try {
              if (inodeAt(path) === fs.fstatSync(fd, { bigint: true }).ino) fs.unlinkSync(path);
            } catch {}
            fs.closeSync(fd);
            throw failure;
          }
        }
        fs.closeSync(fd); // our empty file was broken as stale before we wrote it
        fd = -1;
        continue;
      }
    }
    try {
      const content = fs.readFileSync(path, 'utf8');
      const st = fs.statSync(path);
      if (isStale(content, st.ctimeMs, Date.now())) {
        tryBreak(path, content);
        continue;
      }
    } catch {
      continue; // released between our attempt and our read
    }
    if (Date.now() >= deadline) {
      fail('WS103', 'the session mutex is busy: another process held it past the timeout; try again', { lock: path });
    }
    sleepSync(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 50);
  }
  holding.set(dir, { since: takenAt, ino: held ? held.ino : fs.fstatSync(fd, { bigint: true }).ino });
  try {
    return fn();
  } finally {
    holding.delete(dir);
    // A live holder is broken only STALE_MS after it took the mutex: a short hold is still
    // ours; a long one unlinks only if the name is still its own inode.
    const short = Date.now() - takenAt < STALE_MS / 2;
    try {
      const ours = held ? held.ino : fs.fstatSync(fd, { bigint: true }).ino;
      if (short || inodeAt(path) === ours) fs.unlinkSync(path);
    } catch {
      // Already gone (broken as stale): nothing of ours to release.
    } finally {
      if (fd >= 0) fs.closeSync(fd);
    }
  }
}

/**
 * Called by a holder just before it writes (the log append): after a hold long enough to have
 * been broken as stale (the process was stopped or the machine slept), checks that `.mutex` is
 * still its own, and refuses (WS103, nothing written) if another process took over meanwhile.
 */
export function assertMutexStillHeld(dir: string): void {
  const h = holding.get(dir);
  if (!h || Date.now() - h.since < STALE_MS / 2) return;
  if (inodeAt(`${dir}/.mutex`) !== h.ino) {
    fail('WS103', 'the session mutex was broken while this process was stalled holding it; nothing was written — try again', { lock: `${dir}/.mutex` });
  }
}

function inodeAt(path: string): bigint | undefined {
  return fs.statSync(path, { bigint: true, throwIfNoEntry: false })?.ino;
}
