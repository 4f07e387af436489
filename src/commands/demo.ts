// `baton demo`: a scripted Claude Code session played through the real hook entry, as child
// processes, in a temporary store — start, prompts, a pointer publish through the PUBLISHER
// command, a compaction, a closed window, a restart that re-injects the pointer, an end.
// Writes only inside its temporary folders (removed unless --keep).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { FsStore } from '../store/store.ts';

export interface DemoStep {
  step: number;
  what: string;
  event: string;
  exit_code: number | null;
  injected: string | null;
  stderr: string;
  receipt?: unknown;
}

export interface DemoResult {
  store: string;
  project: string;
  session: string;
  steps: DemoStep[];
  events: { seq: number; type: string; summary: string }[];
  contexts: { file: string; text: string }[];
  kept: boolean;
}

function field(ctx: string | null, key: string): string | undefined {
  const m = ctx ? new RegExp(`^${key}=(.*)$`, 'm').exec(ctx) : null;
  return m ? m[1] : undefined;
}

function summarise(type: string, p: Record<string, unknown>): string {
  switch (type) {
    case 'session.created':
      return `"${p.title}" by ${p.created_by}`;
    case 'episode.opened':
      return `${p.episode} (${p.source})`;
    case 'episode.closed':
      return `${p.episode}: ${p.reason} → ${p.outcome}, ${p.prompts} prompt(s)`;
    case 'prompt.submitted':
      return JSON.stringify(p.text);
    case 'pointer.published':
    case 'pointer.cleared':
      return `${p.status} revision ${p.revision}`;
    default:
      return '';
  }
}

export function runDemo(node: string, bin: string, opts: { keep?: boolean } = {}): DemoResult {
  const root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'baton-demo-')));
  const home = join(root, 'store');
  const project = join(root, 'project');
  fs.mkdirSync(project);
  const sid = randomUUID();
  const transcript = join(root, 'transcript.jsonl');
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_HOME: home, CLAUDE_PROJECT_DIR: project };
  delete env.BATON_SESSION;
  delete env.BATON_VERIFY;
  const steps: DemoStep[] = [];
  let lastContext: string | null = null;
  const hook = (what: string, payload: Record<string, unknown>): void => {
    const full = { session_id: sid, transcript_path: transcript, cwd: project, ...payload };
    const r = spawnSync(node, [bin, 'hook', 'claude'], { input: JSON.stringify(full), encoding: 'utf8', env, cwd: project });
    let injected: string | null = null;
    if (r.stdout.trim().startsWith('{')) {
      try {
        injected = JSON.parse(r.stdout).hookSpecificOutput?.additionalContext ?? null;
      } catch {}
    }
    if (injected) lastContext = injected;
    const label = `${payload.hook_event_name}${payload.source ? `(${payload.source})` : payload.reason ? `(${payload.reason})` : payload.trigger ? `(${payload.trigger})` : ''}`;
    steps.push({ step: steps.length + 1, what, event: label, exit_code: r.status, injected, stderr: r.stderr.trim() });
  };
  const publish = (what: string, text: string): void => {
    const cmd = field(lastContext, 'PUBLISHER');
    const step: DemoStep = { step: steps.length + 1, what, event: 'pointer publish', exit_code: null, injected: null, stderr: '' };
    if (!cmd) {
      step.stderr = 'no PUBLISHER= line in the context the agent was given';
      steps.push(step);
      return;
    }
    const req = {
      schema_version: 3,
      session_id: field(lastContext, 'SESSION_ID') ?? sid,
      expected_generation: field(lastContext, 'GENERATION') ?? 'ABSENT',
      expected_revision: Number(field(lastContext, 'REVISION') ?? 0),
      task_id: field(lastContext, 'TASK_ID') ?? randomUUID(),
      target_status: 'CLEAN',
      pointer_text: text,
    };
    const r = spawnSync('/bin/sh', ['-c', cmd], { input: JSON.stringify(req), encoding: 'utf8', env, cwd: project });
    step.exit_code = r.status;
    step.stderr = r.stderr.trim();
    try {
      step.receipt = JSON.parse(r.stdout);
    } catch {
      step.receipt = r.stdout.trim();
    }
    steps.push(step);
  };

  hook('Claude Code starts in the project', { hook_event_name: 'SessionStart', source: 'startup', model: 'claude-demo' });
  hook('you ask for something', { hook_event_name: 'UserPromptSubmit', prompt: 'Add retries with backoff to the upload client' });
  publish('the agent publishes its pointer (PUBLISHER command from its context)', 'Goal: retries with backoff in the upload client\nNext: cover the retry path with a test');
  hook('you ask for the next thing', { hook_event_name: 'UserPromptSubmit', prompt: 'Now cover the retry path with a test' });
  hook('/compact', { hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: '' });
  hook('after the compaction', { hook_event_name: 'SessionStart', source: 'compact' });
  hook('the window is closed (no clean exit)', { hook_event_name: 'SessionEnd', reason: 'other' });
  hook('claude --resume: the pointer comes back', { hook_event_name: 'SessionStart', source: 'resume', model: 'claude-demo' });
  hook('you ask where things stand', { hook_event_name: 'UserPromptSubmit', prompt: 'Where was I?' });
  hook('/exit', { hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' });

  const store = new FsStore(home);
  const events = store.exists(sid) ? store.readEvents(sid).map((e) => ({ seq: e.seq, type: e.type, summary: summarise(e.type, e.payload) })) : [];
  const contexts: { file: string; text: string }[] = [];
  const cdir = join(store.dir(sid), 'contexts');
  try {
    for (const f of fs.readdirSync(cdir).sort()) contexts.push({ file: join(cdir, f), text: fs.readFileSync(join(cdir, f), 'utf8') });
  } catch {}
  if (!opts.keep) fs.rmSync(root, { recursive: true, force: true });
  return { store: home, project, session: sid, steps, events, contexts, kept: !!opts.keep };
}

export function demoText(r: DemoResult): string[] {
  const out: string[] = [`baton demo: a scripted Claude Code session through the real hook (store ${r.kept ? r.store : 'in a temporary folder'})`, ''];
  out.push('Timeline:');
  for (const s of r.steps) {
    const first = s.injected ? s.injected.split('\n')[0] : s.receipt ? JSON.stringify(s.receipt) : '';
    out.push(`  ${String(s.step).padStart(2)}. ${s.what}`);
    out.push(`      ${s.event} → exit ${s.exit_code}${first ? `; ${s.injected ? `injected ${Buffer.byteLength(s.injected)} bytes: ${first}` : first}` : ''}`);
    if (s.stderr) out.push(`      stderr: ${s.stderr.split('\n')[0]}`);
  }
  out.push('', `Session ${r.session}, its log:`);
  for (const e of r.events) out.push(`  ${String(e.seq).padStart(3)}  ${e.type.padEnd(18)} ${e.summary}`);
  const resumed = [...r.steps].reverse().find((s) => s.event === 'SessionStart(resume)');
  out.push('', 'What the agent was told after the restart (SessionStart resume):');
  out.push(...(resumed?.injected ? resumed.injected.split('\n').map((l) => `  | ${l}`) : ['  (nothing)']));
  if (r.contexts.length) {
    out.push('', `Frozen start contexts (${r.contexts.length}): what each episode was told when it began, with its closure:`);
    for (const c of r.contexts) out.push('', `  contexts/${basename(c.file)}`, ...c.text.trimEnd().split('\n').map((l) => `  | ${l}`));
  }
  if (r.kept) out.push('', `Kept: ${r.store} (look around with: baton --home ${r.store} session show ${r.session})`);
  else out.push('', `The store was temporary and is removed: the paths into it read <temporary store> above (baton demo --keep keeps it).`);
  // A path into a store that is gone would not stay true: shown as what it was.
  return r.kept ? out : out.map((l) => l.replaceAll(r.store, '<temporary store>'));
}
