// GitHub Copilot CLI (`copilot`, 1.0.102 seen): its own hooks format, read from every
// `~/.copilot/hooks/*.json` (user) and `.github/hooks/*.json` (repo), so baton owns one whole
// file, `baton.json`, in each (install.ts, owned files). Payloads are camelCase and name no
// event: each entry's command sets BATON_HOOK_EVENT to its event. Context goes out as
// top-level `{"additionalContext": ...}` on sessionStart and userPromptSubmitted (plain
// stdout and hookSpecificOutput are ignored by Copilot). `copilot -p` ends with sessionEnd
// reason `complete`; a bare `/compact` fires preCompact and no sessionStart; agentStop (with
// transcriptPath) ends every turn: baton's turn-end.
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { type HookEvent, type HookOutput, type ProviderAdapter, shapeJson } from './types.ts';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Copilot's camelCase payload (or the snake_case one of its Claude-style settings hooks) in baton's field names. */
export function copilotPayload(p: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const source = str(p.source);
  return {
    hook_event_name: env.BATON_HOOK_EVENT || p.hook_event_name,
    session_id: p.sessionId ?? p.session_id,
    cwd: p.cwd,
    transcript_path: p.transcriptPath ?? p.transcript_path,
    // `new` is Copilot's fresh start: baton calls it startup, as for every other agent.
    source: source === 'new' ? 'startup' : source,
    reason: p.reason,
    trigger: p.trigger,
    prompt: p.prompt,
  };
}

const INUSE_RE = /^inuse\.(\d+)\.lock$/;

/**
 * Copilot (1.0.102) writes its session's `events.jsonl` as it goes only now and then and the
 * rest as it exits, after its hooks ran: seen in the real program, the file missing at both
 * agentStop and sessionEnd of a turn with tool calls. While it runs, it holds
 * `inuse.<pid>.lock` in the session's folder: the transcript is settled once no live process
 * holds one (a crashed Copilot's lock names a dead pid).
 */
export function copilotTranscriptSettled(ev: HookEvent, env: NodeJS.ProcessEnv): boolean {
  if (!ev.transcriptPath && !/^[\w-]+$/.test(ev.providerSessionId)) return true;
  const dir = ev.transcriptPath ? dirname(ev.transcriptPath) : join(env.COPILOT_HOME || join(env.HOME || '/', '.copilot'), 'session-state', ev.providerSessionId);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return false;
  }
  for (const n of names) {
    const m = INUSE_RE.exec(n);
    if (!m) continue;
    try {
      process.kill(Number(m[1]), 0);
      return false;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPERM') return false;
    }
  }
  return names.includes('events.jsonl');
}

export const copilot: ProviderAdapter = {
  name: 'copilot',
  title: 'GitHub Copilot CLI',
  // agentStop ends every turn (1.0.102: test/fixtures/providers/copilot/agentStop.json, with transcriptPath → transcript_path).
  events: { start: 'sessionStart', prompt: 'userPromptSubmitted', 'pre-compact': 'preCompact', end: 'sessionEnd', 'turn-end': 'agentStop' },
  // `complete` is a finished run (also `copilot -p`), `user_exit` a deliberate quit; `error`, `abort`, `timeout` and unknown → interrupted.
  closedReasons: ['complete', 'user_exit'],
  settings: {
    user: { base: 'home', path: '.copilot/hooks/baton.json' },
    project: { base: 'project', path: '.github/hooks/baton.json' },
  },
  ownedFile: 'hooks-json',
  projectDirVar: null,
  // Copilot names no project-dir variable: hooks run in the session's cwd, so find the repo root.
  shimCommand: '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.baton/hooks/copilot',
  timeoutValue: 10,
  timeoutUnit: 'seconds',
  budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 10_000, 'turn-end': 10_000 },
  normalize: copilotPayload,
  transcriptSettled: copilotTranscriptSettled,
  installNote: (_home, scope) =>
    scope === 'user' ? undefined : 'Copilot runs repository hooks in a folder you trust: trust it when Copilot asks (with -p: --trust-folder or COPILOT_ALLOW_ALL=true).',
  shape: (ev, res): HookOutput => {
    if (res.failure || res.block) return shapeJson(ev, res, { contextEvents: [] });
    const ctx = res.context && (ev.kind === 'start' || ev.kind === 'prompt') ? res.context : undefined;
    if (res.stop) {
      const out: Record<string, unknown> = { continue: false, stopReason: res.stop.reason };
      if (ctx) out.additionalContext = ctx;
      return { stdout: `${JSON.stringify(out)}\n`, stderr: [`TASK_POINTER_V2:${res.stop.code}`], exitCode: 0 };
    }
    return ctx ? { stdout: `${JSON.stringify({ additionalContext: ctx })}\n`, stderr: [], exitCode: 0 } : { stdout: '', stderr: [], exitCode: 0 };
  },
};
