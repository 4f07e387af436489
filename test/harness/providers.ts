// A provider harness for tests: behaves as Claude Code, Gemini CLI, Codex CLI and Qwen Code do with
// their hook settings (fixtures/providers/README.md). It reads the settings files that
// `baton install` wrote, finds the entries for an event (matchers included), runs each
// command exactly as configured through `sh -c` with the payload on stdin and the
// provider's environment, and interprets exit code and stdout by that provider's rules.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { parse } from 'jsonc-parser';

export type ProviderName = 'claude' | 'gemini' | 'codex' | 'qwen' | 'droid';

export interface HarnessRun {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface HarnessOutcome {
  /** Entries that matched the event. */
  runs: HarnessRun[];
  /** Text that reaches the model as context. */
  contexts: string[];
  blocked: boolean;
  blockReason?: string;
  stopped: boolean;
  stopReason?: string;
  /** Shown to the user only (stderr on some exits, Gemini's plain text). */
  userMessages: string[];
  /** Hook failures by the provider's rules (bad JSON, unexpected exit codes). */
  errors: string[];
}

export interface HarnessOptions {
  provider: ProviderName;
  /** Settings files in the provider's merge order (user, project, local); missing ones are skipped. */
  settingsFiles: string[];
  payload: Record<string, unknown>;
  projectDir: string;
  env?: Record<string, string | undefined>;
}

interface Entry {
  command: string;
  matcher?: string;
}

function entriesFor(files: string[], event: string): Entry[] {
  const out: Entry[] = [];
  for (const f of files) {
    if (!fs.existsSync(f)) continue;
    const j = parse(fs.readFileSync(f, 'utf8')) as { hooks?: Record<string, { matcher?: string; hooks?: { type?: string; command?: string }[] }[]> };
    for (const group of j?.hooks?.[event] ?? []) {
      for (const h of group.hooks ?? []) {
        if (h.type === 'command' && typeof h.command === 'string') out.push({ command: h.command, matcher: group.matcher });
      }
    }
  }
  return out;
}

/** What the provider matches a group's matcher against, per event (none: matchers ignored). */
function matchTarget(event: string, p: Record<string, unknown>): string | null {
  if (event === 'SessionStart') return String(p.source ?? '');
  if (event === 'SessionEnd') return String(p.reason ?? '');
  if (event === 'PreCompact' || event === 'PreCompress') return String(p.trigger ?? '');
  return null; // UserPromptSubmit / BeforeAgent: matchers are ignored
}

function matches(matcher: string | undefined, target: string | null): boolean {
  if (target === null || matcher === undefined || matcher === '' || matcher === '*') return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(target);
  } catch {
    return matcher === target;
  }
}

const CONTEXT_EVENTS: Record<ProviderName, string[]> = {
  claude: ['SessionStart', 'UserPromptSubmit'],
  gemini: ['SessionStart', 'BeforeAgent'],
  codex: ['SessionStart', 'UserPromptSubmit'],
  qwen: ['SessionStart', 'UserPromptSubmit'],
  droid: ['SessionStart', 'UserPromptSubmit'],
};

export function runProviderEvent(o: HarnessOptions): HarnessOutcome {
  const event = String(o.payload.hook_event_name);
  const target = matchTarget(event, o.payload);
  const seen = new Set<string>();
  const entries = entriesFor(o.settingsFiles, event).filter((e) => {
    if (!matches(e.matcher, target) || seen.has(e.command)) return false; // identical handlers run once
    seen.add(e.command);
    return true;
  });
  const env: Record<string, string | undefined> = { ...process.env, ...o.env };
  if (o.provider === 'claude') env.CLAUDE_PROJECT_DIR = o.projectDir;
  if (o.provider === 'qwen') env.QWEN_PROJECT_DIR = o.projectDir;
  if (o.provider === 'gemini') {
    env.GEMINI_PROJECT_DIR = o.projectDir;
    env.CLAUDE_PROJECT_DIR = o.projectDir;
    env.GEMINI_SESSION_ID = String(o.payload.session_id);
  }
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const out: HarnessOutcome = { runs: [], contexts: [], blocked: false, stopped: false, userMessages: [], errors: [] };
  for (const e of entries) {
    const r = spawnSync('/bin/sh', ['-c', e.command], {
      input: JSON.stringify(o.payload),
      encoding: 'utf8',
      env: env as NodeJS.ProcessEnv,
      cwd: o.projectDir,
      timeout: 60_000,
    });
    const run: HarnessRun = { command: e.command, code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    out.runs.push(run);
    interpret(o.provider, event, run, out);
  }
  return out;
}

function interpret(provider: ProviderName, event: string, run: HarnessRun, out: HarnessOutcome): void {
  const t = run.stdout.trim();
  const contextEvent = CONTEXT_EVENTS[provider].includes(event);
  if (run.code === 0) {
    if (t === '') return;
    const looksJson = provider === 'claude' ? t.startsWith('{') : t.startsWith('{') || t.startsWith('[');
    if (!looksJson) {
      if (provider === 'gemini') out.userMessages.push(t); // Gemini: plain text is a UI message, not context
      else if (contextEvent) out.contexts.push(run.stdout);
      return;
    }
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(t);
    } catch {
      out.errors.push(`${event}: stdout is not valid JSON`);
      return;
    }
    if (j.continue === false) {
      out.stopped = true;
      out.stopReason = String(j.stopReason ?? '');
    }
    if (j.decision === 'block' || (provider === 'gemini' && j.decision === 'deny')) {
      if (provider === 'codex' && !(typeof j.reason === 'string' && j.reason)) out.errors.push(`${event}: block without a reason`);
      else {
        out.blocked = true;
        out.blockReason = String(j.reason ?? '');
      }
    }
    const hso = j.hookSpecificOutput as { hookEventName?: string; additionalContext?: unknown } | undefined;
    if (hso && typeof hso.additionalContext === 'string' && contextEvent) {
      if (provider === 'claude' && hso.hookEventName !== event) out.errors.push(`${event}: hookSpecificOutput.hookEventName is ${hso.hookEventName}`);
      else out.contexts.push(hso.additionalContext);
    }
    return;
  }
  if (run.code === 2 || (provider === 'gemini' && (run.code ?? 0) > 2)) {
    const blocking = provider === 'claude' ? event === 'UserPromptSubmit' || event === 'PreCompact' : provider === 'codex' ? event === 'UserPromptSubmit' && run.stderr.trim() !== '' : event === 'BeforeAgent';
    if (blocking) {
      out.blocked = true;
      out.blockReason = run.stderr.trim();
    } else out.userMessages.push(run.stderr.trim());
    return;
  }
  out.errors.push(`${event}: exit ${run.code}: ${run.stderr.trim().split('\n')[0] ?? ''}`);
}

/**
 * GitHub Copilot CLI (1.0.102) with its hooks folders: every `*.json` of `hooksDirs` (user
 * `~/.copilot/hooks`, repo `.github/hooks`), entries `{type: "command", bash}` of the event run
 * through bash with the camelCase payload on stdin. Only a top-level `additionalContext` in
 * JSON stdout reaches the model (sessionStart, userPromptSubmitted); plain stdout and
 * hookSpecificOutput are ignored; a non-zero exit is a hook error.
 */
export function runCopilotEvent(o: { hooksDirs: string[]; event: string; payload: Record<string, unknown>; projectDir: string; env?: Record<string, string | undefined> }): HarnessOutcome {
  const commands: string[] = [];
  for (const dir of o.hooksDirs) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).sort()) {
      if (!name.endsWith('.json')) continue;
      const j = JSON.parse(fs.readFileSync(`${dir}/${name}`, 'utf8')) as { hooks?: Record<string, { type?: string; bash?: string }[]> };
      for (const h of j.hooks?.[o.event] ?? []) if (h.type === 'command' && typeof h.bash === 'string') commands.push(h.bash);
    }
  }
  const env: Record<string, string | undefined> = { ...process.env, ...o.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const out: HarnessOutcome = { runs: [], contexts: [], blocked: false, stopped: false, userMessages: [], errors: [] };
  for (const command of commands) {
    const r = spawnSync('bash', ['-c', command], { input: JSON.stringify(o.payload), encoding: 'utf8', env: env as NodeJS.ProcessEnv, cwd: o.projectDir, timeout: 60_000 });
    const run: HarnessRun = { command, code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    out.runs.push(run);
    if (run.code !== 0) {
      out.errors.push(`${o.event}: exit ${run.code}: ${run.stderr.trim().split('\n')[0] ?? ''}`);
      continue;
    }
    const t = run.stdout.trim();
    if (!t.startsWith('{')) continue;
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(t);
    } catch {
      out.errors.push(`${o.event}: stdout is not valid JSON`);
      continue;
    }
    if ((o.event === 'sessionStart' || o.event === 'userPromptSubmitted') && typeof j.additionalContext === 'string') out.contexts.push(j.additionalContext);
  }
  return out;
}
