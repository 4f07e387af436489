// `baton continue` (transcripts.md, "Pick and continue"; docs/adr/0065, 0066): the plan — which
// agent, which exact command line, environment and folder, which handoff block — that the CLI
// runs and prints, that the app server's thread/continue, the web page and `baton pick` return.
// Invariants: continuePlan writes nothing and takes no lease, yet refuses exactly where a run
// would (unknown agent, agent not on PATH, workspace gone, a lease held by another holder, an
// expired one without --steal, a shared session owned by another machine, an archived one);
// the run executes the plan's command as printed. The handoff block is the one the target's
// start hook renders (src/hooks/handoff.ts), from the same projection.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { fail } from '../core/errors.ts';
import { DEFAULT_HANDOFF_BUDGET, HANDOFF_ENV, type HandoffSpec, MAX_HANDOFF_BUDGET, MIN_HANDOFF_BUDGET, formatHandoffSpec, readRecentProjection, renderHandoff } from '../hooks/handoff.ts';
import { shellJoin, shellQuote } from '../hooks/shell.ts';
import { LOG_FILE } from '../store/log.ts';
import { isValid, readLock } from '../store/lease.ts';
import { readManifest } from '../store/projections.ts';
import { refsNow } from '../store/refs.ts';
import { checkOwnership, readMarker } from '../store/replica.ts';
import { FsStore, type Writer, cliInstanceId } from '../store/store.ts';

/** How each agent program is found, installed and resumed (test/fixtures/transcripts/<agent>/README.md). */
export interface AgentProgram {
  name: string;
  title: string;
  /** The program's name on PATH. */
  bin: string;
  /** The npm package that installs it. */
  npm: string;
  /** Its own resume of session `id`, with the user's arguments. */
  resume: (id: string, args: readonly string[]) => string[];
  /** What its resume is, for docs and help. */
  resumeForm: string;
}

/** `codex exec …`, `droid exec …`, `opencode run …`: a resume inside the non-interactive subcommand when the arguments start with it. */
const inside = (sub: string, flag: string[], id: string, args: readonly string[], otherwise: string[]): string[] =>
  args[0] === sub ? [sub, ...flag, id, ...args.slice(1)] : [...otherwise, ...args];

export const AGENT_PROGRAMS: readonly AgentProgram[] = [
  { name: 'claude', title: 'Claude Code', bin: 'claude', npm: '@anthropic-ai/claude-code', resume: (id, a) => ['--resume', id, ...a], resumeForm: 'claude --resume ID' },
  {
    name: 'codex',
    title: 'Codex CLI',
    bin: 'codex',
    npm: '@openai/codex',
    resume: (id, a) => inside('exec', ['resume'], id, a, ['resume', id]),
    resumeForm: 'codex resume ID (codex exec resume ID when the arguments start with exec)',
  },
  { name: 'gemini', title: 'Gemini CLI', bin: 'gemini', npm: '@google/gemini-cli', resume: (id, a) => ['--resume', id, ...a], resumeForm: 'gemini --resume ID' },
  { name: 'qwen', title: 'Qwen Code', bin: 'qwen', npm: '@qwen-code/qwen-code', resume: (id, a) => ['--resume', id, ...a], resumeForm: 'qwen --resume ID' },
  { name: 'copilot', title: 'Copilot CLI', bin: 'copilot', npm: '@github/copilot', resume: (id, a) => [`--resume=${id}`, ...a], resumeForm: 'copilot --resume=ID' },
  {
    name: 'droid',
    title: 'Factory Droid',
    bin: 'droid',
    npm: '@factory/cli',
    resume: (id, a) => inside('exec', ['-s'], id, a, ['--resume', id]),
    resumeForm: 'droid --resume ID (droid exec -s ID when the arguments start with exec)',
  },
  {
    name: 'opencode',
    title: 'opencode',
    bin: 'opencode',
    npm: 'opencode-ai',
    resume: (id, a) => inside('run', ['--session'], id, a, ['--session', id]),
    resumeForm: 'opencode --session ID (opencode run --session ID when the arguments start with run)',
  },
  {
    name: 'kilo',
    title: 'Kilo',
    bin: 'kilo',
    npm: '@kilocode/cli',
    resume: (id, a) => inside('run', ['--session'], id, a, ['--session', id]),
    resumeForm: 'kilo --session ID (kilo run --session ID when the arguments start with run)',
  },
  { name: 'pi', title: 'pi', bin: 'pi', npm: '@mariozechner/pi-coding-agent', resume: (id, a) => ['--session', id, ...a], resumeForm: 'pi --session ID' },
];

export const AGENT_NAMES = AGENT_PROGRAMS.map((a) => a.name);

export function agentProgram(name: string): AgentProgram {
  const a = AGENT_PROGRAMS.find((x) => x.name === name);
  if (!a) fail('USAGE', `unknown agent ${JSON.stringify(name)}: baton continues in ${AGENT_NAMES.join(', ')}`, { agents: AGENT_NAMES });
  return a;
}

/** The program's absolute path on PATH, or null. */
export function onPath(bin: string, path: string | undefined): string | null {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const file = join(dir, bin);
    try {
      if (fs.statSync(file).isFile()) {
        fs.accessSync(file, fs.constants.X_OK);
        return file;
      }
    } catch {}
  }
  return null;
}

export interface ContinueOptions {
  /** The agent to continue in; absent: the agent the session last ran in, through its own resume. */
  in?: string;
  /** The handoff block's bytes (default 4096). */
  budget?: number;
  /** Take a lease that expired in another holder's hands. */
  steal?: boolean;
  /** Work in this folder instead of the session's workspace (already a checked real path). */
  workspace?: string;
  /** The agent's own arguments (after `--`). */
  agentArgs?: readonly string[];
  /** The environment the agent is looked up in (PATH) and the holder named from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The handoff's id (tests); default random. */
  handoffId?: string;
}

export interface ContinuePlan {
  session: string;
  agent: string;
  /** `resume`: the agent's own resume of its session; `start`: a new run bound to the session, with the handoff. */
  mode: 'resume' | 'start';
  /** The agent the session last ran in (null: none). */
  from_agent: string | null;
  /** The agent session resumed (mode resume). */
  agent_session: string | null;
  /** The exact command line (cd, environment, program, arguments), for a shell. */
  command: string;
  /** The program as found on PATH, and its arguments. */
  program: string;
  argv: string[];
  /** The variables continue sets in the agent's environment (the rest is inherited). */
  env: Record<string, string>;
  cwd: string;
  /** The handoff block the agent's first start will get (mode start), else null. */
  block: string | null;
  /** The holder the run takes the lease as. */
  lease: { surface: string; instance_id: string };
  install: string;
}

/** The writer a continue in `agent` takes the lease as: the target's surface, this user and machine. */
export function continueWriter(agent: string, env: NodeJS.ProcessEnv = process.env): Writer {
  const who = cliInstanceId(env).replace(/^cli@/, '');
  return { surface: `hook:${agent}`, instanceId: `hook:${agent}:continue@${who}`, actor: 'user' };
}

interface EpisodeSeen {
  episode: string;
  provider: string;
  provider_session_id: string;
  ts: string;
}

/**
 * The last `episode.opened` (of `provider`, or of any agent), read backwards from the log's
 * end a window at a time: a continue reads as little of a long log as it can.
 */
export function lastEpisode(sessionDir: string, provider?: string): EpisodeSeen | null {
  let fd: number;
  try {
    fd = fs.openSync(join(sessionDir, LOG_FILE), 'r');
  } catch {
    return null;
  }
  try {
    const WINDOW = 1024 * 1024;
    let end = fs.fstatSync(fd).size;
    let carry = '';
    while (end > 0) {
      const start = Math.max(0, end - WINDOW);
      const buf = Buffer.allocUnsafe(end - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      const text = buf.toString('utf8') + carry;
      const lines = text.split('\n');
      carry = start > 0 ? (lines.shift() ?? '') : '';
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i];
        if (!line.includes('"type":"episode.opened"')) continue;
        try {
          const ev = JSON.parse(line) as { type: string; ts: string; payload: Record<string, unknown> };
          const p = ev.payload;
          if (ev.type !== 'episode.opened' || typeof p.provider !== 'string' || typeof p.provider_session_id !== 'string') continue;
          if (provider ? p.provider !== provider : !AGENT_NAMES.includes(p.provider)) continue;
          return { episode: String(p.episode), provider: p.provider, provider_session_id: p.provider_session_id, ts: ev.ts };
        } catch {}
      }
      end = start;
    }
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** The lease checks of a run, made without taking it (WS101 held by another holder, WS102 expired without --steal). */
function checkLease(dir: string, id: string, writer: Writer, steal: boolean, retry: string, now: number): void {
  const cur = readLock(dir);
  if (!cur || cur.holder.instance_id === writer.instanceId) return;
  if (isValid(cur, now)) {
    const left = Math.ceil((Date.parse(cur.lease.lease_until) - now) / 1000);
    fail('WS101', `session ${id} is leased by ${cur.holder.instance_id} (${cur.holder.surface}) for ${left}s more`, { holder: cur.holder, lease_until: cur.lease.lease_until, seconds_left: left });
  }
  if (!steal) {
    fail('WS102', `the lease on ${id} held by ${cur.holder.instance_id} expired at ${cur.lease.lease_until}; take it with ${retry} --steal`, {
      holder: cur.holder,
      lease_until: cur.lease.lease_until,
      command: `${retry} --steal`,
    });
  }
}

/** The handoff id: 16 lower-case hex digits. */
const newHandoffId = (): string => randomBytes(8).toString('hex');

/**
 * What `baton continue ID` would run, and the refusals it would meet, without running anything
 * or writing anything. The app server's `thread/continue`, the web page and `baton pick` call it.
 */
export function continuePlan(home: string, sessionId: string, opts: ContinueOptions = {}): ContinuePlan {
  const env = opts.env ?? process.env;
  const budget = opts.budget ?? DEFAULT_HANDOFF_BUDGET;
  if (!Number.isSafeInteger(budget) || budget < MIN_HANDOFF_BUDGET || budget > MAX_HANDOFF_BUDGET) {
    fail('USAGE', `--budget must be a whole number of bytes from ${MIN_HANDOFF_BUDGET} to ${MAX_HANDOFF_BUDGET}, got ${budget}`, { budget });
  }
  const target = opts.in !== undefined ? agentProgram(opts.in) : undefined;
  const store = new FsStore(home);
  const id = store.resolve(sessionId);
  const dir = store.dir(id);
  const manifest = readManifest(dir) ?? store.refreshProjections(id);
  if (manifest.status.state === 'archived') fail('WS002', `session ${id} is archived: it is read-only`, { session: id });

  const recent = readRecentProjection(dir);
  const lastAgent = recent?.last_agent && AGENT_NAMES.includes(recent.last_agent) ? recent.last_agent : null;
  const lastEp = lastAgent ? null : lastEpisode(dir);
  const fromAgent = lastAgent ?? lastEp?.provider ?? null;

  let agent: AgentProgram;
  let agentSession: string | null = null;
  if (target) agent = target;
  else {
    if (!fromAgent) {
      fail('CN003', `session ${id} never ran in an agent: there is nothing to resume; name one with --in (${AGENT_NAMES.join(', ')})`, { session: id, agents: AGENT_NAMES });
    }
    agent = agentProgram(fromAgent);
    agentSession = lastAgent ? (recent?.last_agent_session ?? null) : (lastEp?.provider_session_id ?? null);
    if (!agentSession) agentSession = lastEpisode(dir, agent.name)?.provider_session_id ?? null;
    if (!agentSession) fail('CN003', `session ${id} names no ${agent.title} session to resume; continue it with --in ${agent.name}`, { session: id, agent: agent.name });
  }
  const retry = `baton continue ${id}${target ? ` --in ${agent.name}` : ''}`;

  // The folder: --workspace, else the session's own, which must still exist.
  let cwd = opts.workspace;
  if (!cwd) {
    const ws = manifest.workspace?.cwd;
    if (!ws) fail('CN002', `session ${id} names no workspace: give one with --workspace DIR`, { session: id });
    let ok = false;
    try {
      ok = fs.statSync(ws).isDirectory();
    } catch {}
    if (!ok) fail('CN002', `the workspace of session ${id}, ${ws}, no longer exists: continue elsewhere with --workspace DIR`, { session: id, workspace: ws });
    cwd = ws;
  }

  const program = onPath(agent.bin, env.PATH);
  const install = `npm install -g ${agent.npm}`;
  if (!program) fail('CN001', `${agent.title} (${agent.bin}) is not on PATH: install it with ${install}`, { agent: agent.name, program: agent.bin, install });

  // Team mode: a shared session another machine owns is refused naming the owner; one nobody owns is taken by the run.
  const marker = readMarker(dir);
  if (marker && marker.owner !== null && marker.owner !== marker.machine && fs.existsSync(join(store.home, 'team.json'))) checkOwnership(dir, id);
  const writer = continueWriter(agent.name, env);
  checkLease(dir, id, writer, !!opts.steal, retry, Date.now());

  const args = [...(opts.agentArgs ?? [])];
  const vars: Record<string, string> = { BATON_HOME: store.home, BATON_SESSION: id, BATON_INSTANCE: writer.instanceId };
  let block: string | null = null;
  let argv: string[];
  if (agentSession) argv = agent.resume(agentSession, args);
  else {
    argv = args;
    const from = fromAgent ?? 'none';
    const spec: HandoffSpec = { id: opts.handoffId ?? newHandoffId(), from, to: agent.name, budget, episode: fromAgent ? (lastEp?.provider === from ? lastEp.episode : (lastEpisode(dir, from)?.episode ?? null)) : null };
    vars[HANDOFF_ENV] = formatHandoffSpec(spec);
    let refs: ReturnType<typeof refsNow> = [];
    try {
      refs = refsNow(store, id, new Date());
    } catch {}
    block = renderHandoff({ sessionId: id, spec, recent, refs }).block;
  }
  const command = `cd ${shellQuote(cwd)} && ${Object.entries(vars)
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(' ')} ${shellJoin([agent.bin, ...argv])}`;
  return {
    session: id,
    agent: agent.name,
    mode: agentSession ? 'resume' : 'start',
    from_agent: fromAgent,
    agent_session: agentSession,
    command,
    program,
    argv,
    env: vars,
    cwd,
    block,
    lease: { surface: writer.surface, instance_id: writer.instanceId },
    install,
  };
}
