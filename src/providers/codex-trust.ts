// Codex's hook trust record, read for status, verify and doctor (CLI only: it parses TOML).
// Codex runs a hook from an unmanaged file (~/.codex/hooks.json, <repo>/.codex/hooks.json)
// only once the user trusted it in Codex's `/hooks` view, which writes into
// `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`):
//
//   [hooks.state."/home/u/.codex/hooks.json:session_start:0:0"]
//   trusted_hash = "sha256:…"
//   enabled = true
//
// The key is the source file's absolute path, the event in snake case, the matcher group's
// and the handler's index (codex-rs/hooks/src/engine/discovery.rs). Codex compares
// trusted_hash with a hash of the hook's current definition; baton does not recompute it,
// so an entry trusted and later changed by hand reads as trusted here (Codex shows it as
// "modified" and skips it). Reads only; baton never writes the trust record.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';

export const CODEX_TRUST_HINT = 'open /hooks in Codex and trust the baton entries';

export interface CodexHookState {
  trusted_hash?: string;
  enabled?: boolean;
}

/** Codex's key for one handler: `<file>:<event_in_snake_case>:<group>:<handler>`. */
export function codexHookKey(file: string, event: string, group: number, hook: number): string {
  return `${file}:${event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()}:${group}:${hook}`;
}

/** The `[hooks.state]` table of Codex's user config, empty when there is none or it does not parse. */
export function codexHookStates(userHome: string, env: NodeJS.ProcessEnv = process.env): Map<string, CodexHookState> {
  const file = join(env.CODEX_HOME || join(userHome, '.codex'), 'config.toml');
  const out = new Map<string, CodexHookState>();
  let doc: Record<string, unknown>;
  try {
    doc = parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return out;
  }
  const state = (doc.hooks as Record<string, unknown> | undefined)?.state;
  if (!state || typeof state !== 'object') return out;
  for (const [k, v] of Object.entries(state as Record<string, unknown>)) {
    if (!v || typeof v !== 'object') continue;
    const s = v as Record<string, unknown>;
    out.set(k, { trusted_hash: typeof s.trusted_hash === 'string' ? s.trusted_hash : undefined, enabled: typeof s.enabled === 'boolean' ? s.enabled : undefined });
  }
  return out;
}

/** Whether Codex would run this handler: a trust record with a hash, not disabled. */
export function codexTrusts(states: Map<string, CodexHookState>, file: string, event: string, group: number, hook: number): boolean {
  const s = states.get(codexHookKey(file, event, group, hook));
  return !!s?.trusted_hash && s.enabled !== false;
}
