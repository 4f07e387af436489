// Shared pieces of the transcript recording scripts (record-transcripts-<agent>.ts): a stand-in
// model that plays a fixed list of replies, a hook command that logs every payload it gets, and
// the copy of what the agent wrote into test/fixtures/transcripts/<agent>/ with the temporary
// paths replaced by stable ones. Run by hand (`node --import tsx test/e2e/record-transcripts-<agent>.ts`),
// never by the test suite; writes only the temp user's folders and the fixture folder.
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers.ts';
import type { User } from './agents.ts';
import type { RecordedRequest, Reply, Script } from './model-server.ts';

export const FIXTURE_ROOT = join(ROOT, 'test', 'fixtures', 'transcripts');

/** The fake secret the model prints (redaction must catch it): `ghp_` + 36 letters and digits. */
export const FAKE_SECRET = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2).slice(0, 36)}`;

/** A model that answers each main request with the next reply of `queue` (then plain `ok`); `seen` keeps the requests it answered. */
export function queueScript(queue: Reply[], seen: RecordedRequest[] = []): Script {
  return (r) => {
    seen.push(r);
    return queue.shift() ?? { text: 'ok' };
  };
}

/** The tool names a request offers the model (Responses and Chat Completions shapes). */
export function toolNames(r: RecordedRequest): string[] {
  return (r.body?.tools ?? []).map((t: any) => t?.name ?? t?.function?.name ?? t?.type).filter(Boolean);
}

/** A hook command that appends `{"event": EVENT, "payload": <stdin>}` as one line to `log`. */
export function logHookCommand(log: string, event: string): string {
  return `sh -c 'printf "{\\"event\\":\\"${event}\\",\\"payload\\":" >> "$0"; tr -d "\\n" >> "$0"; echo "}" >> "$0"' ${JSON.stringify(log)}`;
}

/** `text` with the temp user's paths replaced: HOME → /home/u, the project → /home/u/proj, the store → /home/u/.baton. */
export function stablePaths(text: string, user: User): string {
  // Droid names its session folders after the cwd, slashes as dashes.
  return text.split(user.project.replace(/\//g, '-')).join('-home-u-proj').split(user.project).join('/home/u/proj').split(user.batonHome).join('/home/u/.baton').split(user.home).join('/home/u');
}

/** Copies `src` to test/fixtures/transcripts/<agent>/<name> with stable paths; returns the fixture path. */
export function keep(agent: string, name: string, src: string, user: User): string {
  const dest = join(FIXTURE_ROOT, agent, name);
  fs.mkdirSync(dirname(dest), { recursive: true });
  fs.writeFileSync(dest, stablePaths(fs.readFileSync(src, 'utf8'), user));
  return dest;
}

/** Every file under `dir` (relative paths), for finding what the agent wrote. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    let names: fs.Dirent[] = [];
    try {
      names = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of names) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}
