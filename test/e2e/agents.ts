// The e2e harness: a temporary user (HOME, project folder, BATON_HOME) per scenario, the
// real agent programs installed by scripts/run-e2e.mjs into .e2e/agents, each run bounded
// by a kill timer. Nothing here writes outside the temp folders it creates; a crash leaves
// only those folders behind (under the OS temp dir).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, type RunResult, tmpDir } from '../helpers.ts';
import type { ModelServer } from './model-server.ts';

export const AGENTS = join(ROOT, '.e2e', 'agents');
export const CLAUDE_BIN = join(AGENTS, 'node_modules', '.bin', 'claude');
export const GEMINI_BIN = join(AGENTS, 'node_modules', '.bin', 'gemini');
export const CODEX_BIN = join(AGENTS, 'node_modules', '.bin', 'codex');
export const QWEN_BIN = join(AGENTS, 'node_modules', '.bin', 'qwen');
export const COPILOT_BIN = join(AGENTS, 'node_modules', '.bin', 'copilot');
export const OPENCODE_BIN = join(AGENTS, 'node_modules', '.bin', 'opencode');
export const KILO_BIN = join(AGENTS, 'node_modules', '.bin', 'kilo');
export const PI_BIN = join(AGENTS, 'node_modules', '.bin', 'pi');
export const DROID_BIN = join(AGENTS, 'node_modules', '.bin', 'droid');
export const CLAUDE_VERSION = '2.1.328';
export const GEMINI_VERSION = '0.61.0';
export const CODEX_VERSION = '0.171.0';
export const QWEN_VERSION = '0.24.4';
export const COPILOT_VERSION = '1.0.102';
export const OPENCODE_VERSION = '1.18.33';
export const KILO_VERSION = '7.7.7';
export const PI_VERSION = '0.73.1';
/** `@factory/cli` 0.225.1 runs the binary of `@factory/cli-linux-x64` 0.225.2 (it reports 0.225.2). */
export const DROID_VERSION = '0.225.1';
export const DROID_PLATFORM_VERSION = '0.225.2';

/** Kill an agent run after this long: a hung agent fails its test instead of the suite. */
export const AGENT_TIMEOUT_MS = 60_000;

export interface User {
  /** The agent's HOME (its settings files live here). */
  home: string;
  /** The project folder the agent runs in. */
  project: string;
  /** The baton store. */
  batonHome: string;
}

const roots: string[] = [];

/** Whether a process other than this one names `root` on its command line (Linux's /proc; elsewhere: no). */
function processUnder(root: string): boolean {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc');
  } catch {
    return false;
  }
  for (const pid of pids) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(root)) return true;
    } catch {}
  }
  return false;
}

/**
 * Removes every temporary user made so far (kept when E2E_KEEP=1, for a look after a failure).
 * A detached capture an end event started (Copilot's, docs/adr/0070) may still be writing into a
 * user's store, its `--home` naming it: each folder is removed once no process names it (45 s at
 * most), so nothing is left behind and the removal does not race a write (ENOTEMPTY).
 */
export function removeUsers(): void {
  if (process.env.E2E_KEEP === '1') return;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (const r of roots.splice(0)) {
    const until = Date.now() + 45_000;
    while (processUnder(r) && Date.now() < until) Atomics.wait(cell, 0, 0, 100);
    fs.rmSync(r, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

export function newUser(): User {
  const root = tmpDir('baton-e2e-');
  roots.push(root);
  const user = { home: join(root, 'home'), project: join(root, 'project'), batonHome: join(root, 'store') };
  fs.mkdirSync(user.home, { recursive: true });
  fs.mkdirSync(user.project, { recursive: true });
  return user;
}

/** The agent ran to its end: not killed after the timeout, exit 0 (what failed says what ran, stdout and stderr). */
export function assertAgentRan(agent: string, run: AgentRun, what: string): void {
  assert.equal(run.timedOut, false, `${what}: ${agent} was killed after the timeout\n${run.stderr}`);
  assert.equal(run.code, 0, `${what}: ${agent} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** The environment every process of a scenario sees: no network, the temp HOME and store. */
export function userEnv(user: User, server: ModelServer, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    HOME: user.home,
    TMPDIR: process.env.TMPDIR,
    BATON_HOME: user.batonHome,
    // Claude Code
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'stand-in-key',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // Gemini CLI
    GOOGLE_GEMINI_BASE_URL: server.url,
    GEMINI_API_KEY: 'stand-in-key',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    ...extra,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env as NodeJS.ProcessEnv;
}

/** Runs one agent command to its end, or kills it (whole process group) after `timeoutMs`. */
export interface RunOptions {
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** A command prefix (e.g. readOnlyWrap) the agent runs under. */
  wrap?: string[];
  /** Called with a function that signals the agent process (as `kill PID` would; its hooks still run). */
  onStart?: (signal: (sig: NodeJS.Signals) => void) => void;
}

export function runAgent(bin: string, args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  const env = userEnv(user, server, opts.env);
  const [cmd, argv] = opts.wrap ? [opts.wrap[0], [...opts.wrap.slice(1), bin, ...args]] : [bin, args];
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { env, cwd: user.project, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    opts.onStart?.((sig) => {
      try {
        process.kill(child.pid!, sig);
      } catch {}
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }, opts.timeoutMs ?? AGENT_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

export function claude(args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  return runAgent(CLAUDE_BIN, args, user, server, opts);
}

/** Gemini wants its auth type and (here) no usage statistics in its user settings before the first run. */
export function prepareGemini(user: User): void {
  const file = join(user.home, '.gemini', 'settings.json');
  fs.mkdirSync(join(user.home, '.gemini'), { recursive: true });
  let settings: any = {};
  try {
    settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {}
  settings.security = { ...settings.security, auth: { ...settings.security?.auth, selectedType: 'gemini-api-key' } };
  settings.privacy = { ...settings.privacy, usageStatisticsEnabled: false };
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
}

export function gemini(args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  return runAgent(GEMINI_BIN, ['-m', 'gemini-2.5-flash', ...args], user, server, opts);
}

/**
 * Codex reads its model provider from ~/.codex/config.toml: the stand-in server speaks the
 * Responses API under /v1. (A user's own config; `baton install codex` writes hooks.json.)
 */
export function prepareCodex(user: User, server: ModelServer): void {
  fs.mkdirSync(join(user.home, '.codex'), { recursive: true });
  const toml = [
    'model = "gpt-5"',
    'model_provider = "standin"',
    '[model_providers.standin]',
    'name = "stand-in"',
    `base_url = "${server.url}/v1"`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
    '',
  ].join('\n');
  fs.writeFileSync(join(user.home, '.codex', 'config.toml'), toml);
}

/**
 * `codex exec` with the hooks it would run once trusted in /hooks (the flag stands in for
 * that interactive step), and a sandbox that lets the agent's shell write the baton store.
 */
export function codex(args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  const pre = ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--sandbox', 'workspace-write', '-c', `sandbox_workspace_write.writable_roots=[${JSON.stringify(user.batonHome)}]`];
  const [sub, ...rest] = args;
  // `codex exec resume ID PROMPT`: the options go before the subcommand.
  const argv = sub === 'resume' ? [...pre, 'resume', ...rest] : [...pre, ...args];
  return runAgent(CODEX_BIN, argv, user, server, { ...opts, env: { OPENAI_API_KEY: 'stand-in-key', ...opts.env } });
}

/** Qwen Code reads its auth type from ~/.qwen/settings.json; the model and endpoint come from OPENAI_* (see qwen()). */
export function prepareQwen(user: User): void {
  fs.mkdirSync(join(user.home, '.qwen'), { recursive: true });
  const settings = { security: { auth: { selectedType: 'openai' } }, model: { name: 'stand-in' }, privacy: { usageStatisticsEnabled: false } };
  fs.writeFileSync(join(user.home, '.qwen', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

/** `qwen ARGS` against the stand-in's Chat Completions endpoint, tools allowed without asking. */
export function qwen(args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  return runAgent(QWEN_BIN, ['--approval-mode', 'yolo', ...args], user, server, {
    ...opts,
    env: { OPENAI_API_KEY: 'stand-in-key', OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_MODEL: 'stand-in', ...opts.env },
  });
}

/** `copilot ARGS` offline (BYOK) against the stand-in's Chat Completions endpoint; --allow-all: tools and paths (the store is outside the project). */
export function copilot(args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  return runAgent(COPILOT_BIN, [...args, '--allow-all'], user, server, {
    ...opts,
    env: {
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
      COPILOT_PROVIDER_API_KEY: 'stand-in-key',
      COPILOT_MODEL: 'stand-in',
      ...opts.env,
    },
  });
}

/**
 * opencode and Kilo read their providers from `<config>/opencode.json` / `kilo.json`: a custom
 * provider on the stand-in's Chat Completions (the bundled `@ai-sdk/openai-compatible`), tools
 * and paths outside the project (the store) allowed without asking. Their first start
 * npm-installs their plugin package into the config folder unless node_modules is there and
 * package-lock.json names it: opencode's, pinned in .e2e/agents (scripts/run-e2e.mjs), is
 * linked in instead, so no run reaches the registry.
 */
export function prepareOpencodeLike(user: User, server: ModelServer, agent: 'opencode' | 'kilo'): void {
  const dir = join(user.home, '.config', agent);
  fs.mkdirSync(dir, { recursive: true });
  const config = {
    model: 'standin/stand-in',
    provider: {
      standin: {
        npm: '@ai-sdk/openai-compatible',
        name: 'stand-in',
        options: { baseURL: `${server.url}/v1`, apiKey: 'stand-in-key' },
        models: { 'stand-in': { name: 'stand-in', tool_call: true } },
      },
    },
    permission: { bash: 'allow', external_directory: 'allow' },
    autoupdate: false,
    share: 'disabled',
  };
  fs.writeFileSync(join(dir, `${agent}.json`), `${JSON.stringify(config, null, 2)}\n`);
  const deps = agent === 'opencode' ? { '@opencode-ai/plugin': OPENCODE_VERSION } : { '@kilocode/plugin': KILO_VERSION };
  fs.writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ dependencies: deps }, null, 2)}\n`);
  fs.writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify({ lockfileVersion: 3, requires: true, packages: { '': { dependencies: deps } } }, null, 2)}\n`);
  fs.mkdirSync(join(dir, 'node_modules', '@opencode-ai'), { recursive: true });
  // Kilo 7.7.7 asks for @kilocode/plugin@7.7.7, which the registry does not have (its install
  // would fail): nothing to link, the lock alone makes it skip the attempt.
  if (agent === 'opencode') fs.symlinkSync(join(AGENTS, 'node_modules', '@opencode-ai', 'plugin'), join(dir, 'node_modules', '@opencode-ai', 'plugin'));
}

/** `opencode ARGS` / `kilo ARGS` offline: no models.dev fetch, no update check, no LSP download (Kilo: no daemon, no telemetry). */
export function opencodeLike(agent: 'opencode' | 'kilo', args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  const P = agent.toUpperCase();
  return runAgent(agent === 'opencode' ? OPENCODE_BIN : KILO_BIN, args, user, server, {
    ...opts,
    env: {
      [`${P}_DISABLE_MODELS_FETCH`]: 'true',
      [`${P}_DISABLE_AUTOUPDATE`]: 'true',
      [`${P}_DISABLE_LSP_DOWNLOAD`]: 'true',
      ...(agent === 'kilo' ? { KILO_NO_DAEMON: '1', KILO_DISABLE_SESSION_INGEST: 'true', KILO_DISABLE_PRESENCE: 'true' } : {}),
      ...opts.env,
    },
  });
}

/** pi reads its providers from ~/.pi/agent/models.json: one, `standin`, on the stand-in's Chat Completions endpoint. */
export function preparePi(user: User, server: ModelServer): void {
  fs.mkdirSync(join(user.home, '.pi', 'agent'), { recursive: true });
  const models = {
    providers: {
      standin: {
        baseUrl: `${server.url}/v1`,
        api: 'openai-completions',
        apiKey: 'stand-in-key',
        models: [{ id: 'stand-in', name: 'Stand-in', reasoning: false, input: ['text'], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
      },
    },
  };
  fs.writeFileSync(join(user.home, '.pi', 'agent', 'models.json'), `${JSON.stringify(models, null, 2)}\n`);
}

/** `pi ARGS` against the stand-in (its tools run without asking: pi has no approval step). */
export function pi(args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  return runAgent(PI_BIN, ['--model', 'standin/stand-in', ...args], user, server, { ...opts, env: { PI_OFFLINE: '1', ...opts.env } });
}

/** Droid runs offline only as `droid exec` with a BYOK model from `customModels` in ~/.factory/settings.json (no login). */
export function prepareDroid(user: User, server: ModelServer): void {
  fs.mkdirSync(join(user.home, '.factory'), { recursive: true });
  const settings = {
    customModels: [{ model: 'stand-in', displayName: 'Standin', baseUrl: `${server.url}/v1`, apiKey: 'stand-in-key', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 }],
  };
  fs.writeFileSync(join(user.home, '.factory', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

/** `droid exec ARGS` with the stand-in model, allowed to run commands (`--auto high`). */
export function droid(args: string[], user: User, server: ModelServer, opts: RunOptions = {}): Promise<AgentRun> {
  return runAgent(DROID_BIN, ['exec', '-m', 'custom:Standin-0', '--auto', 'high', ...args], user, server, opts);
}

/** `baton ARGS` run as this user (their HOME and store). */
export function userBaton(args: string[], user: User, opts: { input?: string; env?: Record<string, string | undefined> } = {}): RunResult {
  const env: Record<string, string | undefined> = { ...process.env, HOME: user.home, BATON_HOME: user.batonHome, NO_COLOR: '1', BATON_SESSION: undefined, BATON_INSTANCE: undefined, ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const r = spawnSync(process.execPath, [BIN, ...args], { input: opts.input ?? '', encoding: 'utf8', env: env as NodeJS.ProcessEnv, cwd: user.project, timeout: 60_000 });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {}
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

/** True when this process may run a command in a private mount namespace with a read-only bind mount. */
export function canMountReadOnly(): boolean {
  const dir = tmpDir('baton-e2e-ro-');
  try {
    const r = spawnSync('unshare', ['-m', 'sh', '-c', `mount --bind "${dir}" "${dir}" && mount -o remount,bind,ro "${dir}" && ! touch "${dir}/x" 2>/dev/null`], { encoding: 'utf8' });
    return r.status === 0 && !fs.existsSync(join(dir, 'x'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A wrapper that runs a command with `dir` mounted read-only (readable, every write EROFS),
 * in a private mount namespace: root's chmod does not stop root's writes, a read-only mount does.
 */
export function readOnlyWrap(dir: string): string[] {
  return ['unshare', '-m', 'sh', '-c', `mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"`, dir];
}

export function agentsInstalled(): { claude: boolean; gemini: boolean; codex: boolean; qwen: boolean; copilot: boolean; opencode: boolean; kilo: boolean; pi: boolean; droid: boolean } {
  const version = (pkg: string): string | undefined => {
    try {
      return JSON.parse(fs.readFileSync(join(AGENTS, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    } catch {
      return undefined;
    }
  };
  return {
    claude: version('@anthropic-ai/claude-code') === CLAUDE_VERSION,
    gemini: version('@google/gemini-cli') === GEMINI_VERSION,
    codex: version('@openai/codex') === CODEX_VERSION,
    qwen: version('@qwen-code/qwen-code') === QWEN_VERSION,
    copilot: version('@github/copilot') === COPILOT_VERSION,
    opencode: version('opencode-ai') === OPENCODE_VERSION && version('@opencode-ai/plugin') === OPENCODE_VERSION,
    kilo: version('@kilocode/cli') === KILO_VERSION,
    pi: version('@mariozechner/pi-coding-agent') === PI_VERSION,
    droid: version('@factory/cli') === DROID_VERSION && version('@factory/cli-linux-x64') === DROID_PLATFORM_VERSION,
  };
}
