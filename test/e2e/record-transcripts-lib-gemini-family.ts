// Shared pieces (Claude Code, Qwen Code, Gemini CLI; the others use record-transcripts-lib.ts) of the transcript recording scripts (record-transcripts-<agent>.ts): a
// stand-in model that answers from a queue of scripted replies, a plain logging hook entry
// (jq -c, one payload a line) for discovering an agent's events, and the copy of what the
// agent wrote into test/fixtures/transcripts/<agent>/ with the temp paths made stable.
// Run by hand (`node --import tsx test/e2e/record-transcripts-<agent>.ts`), never by the
// test runner; writes only its temp user (removed at the end) and the fixture folder.
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../helpers.ts';
import type { User } from './agents.ts';
import type { Reply, Script } from './model-server.ts';

/** A fake secret the model prints (`ghp_` + 36): redaction must catch it before any write. */
export const FAKE_SECRET = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

/** Answers the main-conversation requests from `queue` in order; a plain `ok` once it is empty. */
export function queueScript(queue: Reply[]): Script {
  return () => queue.shift() ?? { text: 'ok' };
}

/** The hook command that appends each payload as one JSON line to `$HOME/hook-log.jsonl`. */
export const LOG_HOOK = 'jq -c . >> "$HOME/hook-log.jsonl"';

/** Hook settings (Claude Code's shape) logging every named event. */
export function loggingHooks(events: string[], extras: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(events.map((ev) => [ev, [{ hooks: [{ type: 'command', command: LOG_HOOK, ...extras }] }]]));
}

/** Merges `hooks` into the JSON settings file at `file` (created when missing). */
export function writeHooks(file: string, hooks: Record<string, unknown>): void {
  let settings: any = {};
  try {
    settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {}
  settings.hooks = hooks;
  fs.mkdirSync(join(file, '..'), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
}

/** Every file under `dir`, relative, sorted (what the agent wrote). */
export function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort();
}

/** The temp user's paths replaced by stable ones: HOME → /home/u, the project → /home/u/proj (also in the agents' dash-encoded forms). */
export function stablePaths(text: string, user: User): string {
  const dash = (p: string): string => p.replace(/[^A-Za-z0-9]/g, '-');
  return text
    .split(user.project)
    .join('/home/u/proj')
    .split(user.home)
    .join('/home/u')
    .split(dash(user.project))
    .join('-home-u-proj')
    .split(dash(user.home))
    .join('-home-u');
}

export const fixtureDir = (agent: string): string => join(ROOT, 'test', 'fixtures', 'transcripts', agent);

/** Copies `src` to the agent's fixture folder as `name`, with stable paths; returns the destination. */
export function copyFixture(agent: string, src: string, name: string, user: User): string {
  const dir = fixtureDir(agent);
  fs.mkdirSync(dir, { recursive: true });
  const dest = join(dir, name);
  fs.writeFileSync(dest, stablePaths(fs.readFileSync(src, 'utf8'), user));
  return dest;
}

/** Copies the logging hook's payloads (`$HOME/hook-log.jsonl`) to test/fixtures/providers/<agent>/`name`, with stable paths. */
export function copyHookLog(agent: string, name: string, user: User): string {
  const dir = join(ROOT, 'test', 'fixtures', 'providers', agent);
  fs.mkdirSync(dir, { recursive: true });
  const dest = join(dir, name);
  fs.writeFileSync(dest, stablePaths(fs.readFileSync(join(user.home, 'hook-log.jsonl'), 'utf8'), user));
  return dest;
}
