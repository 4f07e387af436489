// `baton verify [PROVIDER]` (hooks.md): proves each installed entry by running its command
// exactly as configured (through `sh -c`, as the provider does) with a synthetic payload per
// event under BATON_VERIFY=1, which forbids mutation: the hook reports on stderr, as one
// JSON line, what it would have written, and writes nothing. Checks the exit code, that
// stdout is what the provider accepts, and the time against the provider's budget.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type InstallContext, batonEntries } from '../providers/install.ts';
import { codexHookStates, codexTrusts } from '../providers/codex-trust.ts';
import type { HookKind, ProviderAdapter, Scope } from '../providers/types.ts';

export interface VerifyRow {
  provider: string;
  scope: Scope;
  event: string;
  command: string;
  ok: boolean;
  ms: number;
  budget_ms: number;
  exit_code: number | null;
  problems: string[];
  would_write: unknown[] | null;
  /** Codex only: whether Codex trusts this entry (it skips an untrusted one without a word); null elsewhere. */
  trusted: boolean | null;
}

export function syntheticPayload(adapter: ProviderAdapter, kind: HookKind, sessionId: string, cwd: string): Record<string, unknown> {
  const p: Record<string, unknown> = {
    session_id: sessionId,
    transcript_path: null,
    cwd,
    hook_event_name: adapter.events[kind],
  };
  if (kind === 'start') p.source = 'startup';
  if (kind === 'prompt') p.prompt = 'baton verify: a synthetic prompt';
  if (kind === 'pre-compact') p.trigger = 'manual';
  if (kind === 'end') p.reason = 'other';
  if (adapter.name === 'gemini') p.timestamp = new Date().toISOString();
  if (adapter.name === 'codex') p.model = 'baton-verify';
  return p;
}

/** Whether stdout is what the provider accepts for this event; returns the problem, if any. */
export function stdoutProblem(adapter: ProviderAdapter, kind: HookKind, stdout: string): string | null {
  const t = stdout.trim();
  if (t === '') return null;
  const looksJson = t.startsWith('{') || t.startsWith('[');
  if (adapter.name === 'gemini' && !looksJson) return 'Gemini CLI takes only JSON on stdout (plain text becomes a UI message, not context)';
  if (!looksJson) return adapter.name === 'claude' && kind !== 'start' && kind !== 'prompt' ? 'plain stdout is ignored for this event' : null;
  let j: unknown;
  try {
    j = JSON.parse(t);
  } catch {
    return 'stdout starts like JSON but does not parse';
  }
  if (!j || typeof j !== 'object' || Array.isArray(j)) return 'stdout JSON is not an object';
  const o = j as Record<string, unknown>;
  if (adapter.ownedFile === 'plugin' && typeof o.context !== 'string') return 'baton\'s plugin reads only {"context": "..."} on stdout';
  const hso = o.hookSpecificOutput as Record<string, unknown> | undefined;
  if (hso !== undefined) {
    if (typeof hso !== 'object' || hso === null) return 'hookSpecificOutput is not an object';
    if (hso.hookEventName !== adapter.events[kind]) return `hookSpecificOutput.hookEventName is ${JSON.stringify(hso.hookEventName)}, not ${adapter.events[kind]}`;
    if (typeof hso.additionalContext !== 'string') return 'hookSpecificOutput.additionalContext is not a string';
  }
  return null;
}

/**
 * Runs each of the provider's entries as the agent would: `env` is the agent's environment
 * (the caller leaves baton's own BATON_HOME out), so an entry that names no store shows where
 * it really writes; `home`, when given, is the store the entry must write to.
 */
export function verifyProvider(adapter: ProviderAdapter, ctx: InstallContext, env: NodeJS.ProcessEnv, home?: string): VerifyRow[] {
  const rows: VerifyRow[] = [];
  const trust = adapter.name === 'codex' ? codexHookStates(ctx.userHome, env) : null;
  for (const { scope, file, entry, kind } of batonEntries(adapter, ctx)) {
    const sessionId = `baton-verify-${randomBytes(6).toString('hex')}`;
    const payload = syntheticPayload(adapter, kind, sessionId, ctx.projectRoot);
    const budget = adapter.budgetMs[kind] ?? 10_000;
    const runEnv: NodeJS.ProcessEnv = { ...env, BATON_VERIFY: '1' };
    if (adapter.projectDirVar) runEnv[adapter.projectDirVar] = ctx.projectRoot;
    if (adapter.name === 'gemini') {
      runEnv.CLAUDE_PROJECT_DIR = ctx.projectRoot;
      runEnv.GEMINI_SESSION_ID = sessionId;
    }
    const t0 = process.hrtime.bigint();
    const r = spawnSync('/bin/sh', ['-c', entry.command], {
      input: JSON.stringify(payload),
      encoding: 'utf8',
      env: runEnv,
      cwd: ctx.projectRoot,
      timeout: Math.max(budget * 4, 10_000),
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const problems: string[] = [];
    let would: unknown[] | null = null;
    let wrote: unknown;
    for (const line of (r.stderr ?? '').split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const j = JSON.parse(line);
        if (j?.baton_verify) {
          would = j.baton_verify.would_write ?? [];
          wrote = j.baton_verify.home;
        }
      } catch {}
    }
    if (home !== undefined && typeof wrote === 'string' && wrote !== home) {
      problems.push(`the entry writes to the store ${wrote}, not ${home}: name it in the entry with \`baton install ${adapter.name} --scope ${scope} --force --home ${home}\`${scope === 'project' ? ' (a project entry names no store: set BATON_HOME in the agent\'s environment, or install at user or local scope)' : ''}`);
    }
    // A moved or deleted checkout: Node cannot load the bin/baton.cjs the entry names.
    // (Or the node it names is gone: `sh` says `<path>: not found`, exit 127.)
    const missing = /Cannot find module '([^']+)'/.exec(r.stderr ?? '') ?? (r.status === 127 ? /^(?:\S*sh: \d+: )?(\/\S+): (?:not found|No such file or directory)/m.exec(r.stderr ?? '') : null);
    // EPIPE: the command exited before reading its payload (a missing node, say); its exit says why.
    if (r.error && !((r.error as NodeJS.ErrnoException).code === 'EPIPE' && r.status !== null)) problems.push(`could not run: ${r.error.message}`);
    if (missing) problems.push(`cannot find ${missing[1].endsWith('.cjs') ? 'baton' : 'node'} at ${missing[1]} — run \`baton install ${adapter.name} --scope ${scope} --force\` from the baton you use now`);
    else if (r.status !== 0) problems.push(`exit code ${r.status ?? r.signal}`);
    if (would === null && !missing) {
      const said = (r.stderr ?? '').trim().split('\n')[0];
      problems.push(`the hook did not report a verify run${said ? ` (stderr: ${said})` : ''}: is baton reachable from this command?`);
    }
    const sp = stdoutProblem(adapter, kind, r.stdout ?? '');
    if (sp) problems.push(sp);
    if (ms > budget) problems.push(`took ${Math.round(ms)} ms, over the ${budget} ms budget`);
    rows.push({
      provider: adapter.name,
      scope,
      event: entry.event,
      command: entry.command,
      ok: problems.length === 0,
      ms: Math.round(ms),
      budget_ms: budget,
      exit_code: r.status,
      problems,
      would_write: would,
      trusted: trust ? codexTrusts(trust, file, entry.event, entry.group, entry.hook) : null,
    });
  }
  return rows;
}
