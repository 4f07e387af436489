// Which session a tool call means when it names none (mcp.md): `BATON_SESSION`, else the
// agent's own session as its hooks recorded it — the session with the most recently opened
// episode whose workspace is the MCP server's working directory (an agent spawns its MCP
// servers in its project, where its hooks opened that episode). Read-only: manifests and the
// episode caches are read, never written.
import * as fs from 'node:fs';
import { fail } from '../core/errors.ts';
import { loadEpisodes } from '../hooks/episodes.ts';
import type { FsStore } from '../store/store.ts';

export interface SessionSource {
  /** The BATON_SESSION of the process that serves, when set. */
  envSession?: string;
  /** The directory an agent spawned the server in (stdio); null over HTTP, where there is none. */
  cwd: string | null;
}

export type Resolved = { id: string; from: 'argument' | 'BATON_SESSION' | 'episode' };

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** The session with the newest open episode in `cwd`, or null. */
export function agentSession(store: FsStore, cwd: string): string | null {
  const here = realOrSelf(cwd);
  let best: { id: string; at: string } | null = null;
  for (const id of store.ids()) {
    const dir = store.dir(id);
    const ws = store.workspaceCwd(id);
    if (!ws || realOrSelf(ws) !== here) continue;
    for (const e of loadEpisodes(dir).open) if (!best || e.opened_at > best.at) best = { id, at: e.opened_at };
  }
  return best?.id ?? null;
}

/** The session a call means; USAGE when none is named and none can be found. */
export function resolveSession(store: FsStore, given: string | undefined, src: SessionSource): Resolved {
  if (given !== undefined) return { id: store.resolve(given), from: 'argument' };
  if (src.envSession) return { id: store.resolve(src.envSession), from: 'BATON_SESSION' };
  const found = src.cwd === null ? null : agentSession(store, src.cwd);
  if (found) return { id: found, from: 'episode' };
  return fail('USAGE', 'no session named and none found: pass `session` (the SESSION_ID of the pointer block baton showed you)', {
    hint: 'pass session',
  });
}
