// Records what Factory Droid (the pinned real program, offline: `droid exec` with a BYOK model
// against the stand-in) writes as its session transcript, into test/fixtures/transcripts/droid/:
// a first `droid exec` (a prompt, a text answer, an Execute call writing notes.txt, a call of its
// file-create tool, an answer printing a fake secret), then `droid exec -s ID` (its resume flag),
// which needs Factory's cloud offline: what it does is printed and, if it wrote anything, kept.
// A logging hook in ~/.factory/settings.json keeps the payloads (test/fixtures/providers/droid/Stop.json).
// Run by hand:
//   node --import tsx test/e2e/record-transcripts-droid.ts
import * as fs from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers.ts';
import { agentsInstalled, DROID_PLATFORM_VERSION, DROID_VERSION, droid, newUser, prepareDroid, removeUsers } from './agents.ts';
import { ModelServer, type RecordedRequest, type Reply, type Script } from './model-server.ts';
import { FAKE_SECRET, filesUnder, keep, logHookCommand, stablePaths, toolNames } from './record-transcripts-lib.ts';

if (!agentsInstalled().droid) throw new Error(`Factory Droid ${DROID_VERSION} is not installed in .e2e/agents`);
const server = await new ModelServer().start();
const user = newUser();
try {
  prepareDroid(user, server);
  const log = join(user.home, 'hooks.log');
  const settingsFile = join(user.home, '.factory', 'settings.json');
  const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  settings.hooks = {};
  for (const ev of ['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'PreCompact', 'SessionEnd', 'Notification']) {
    settings.hooks[ev] = [{ hooks: [{ type: 'command', command: logHookCommand(log, ev), timeout: 10 }] }];
  }
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));

  const seen: RecordedRequest[] = [];
  // The file tool's name and fields come from the first request's tool list.
  const fileCall = (r: RecordedRequest): Reply => {
    const tool = (r.body?.tools ?? []).find((t: any) => /^(Create|Write)$/.test(t?.function?.name ?? ''))?.function;
    if (!tool) return { text: 'no file tool offered' };
    const props = Object.keys(tool.parameters?.properties ?? {});
    const input: Record<string, unknown> = {};
    for (const p of props) {
      if (/path/i.test(p)) input[p] = join(user.project, 'todo.md');
      else if (/content|text/i.test(p)) input[p] = '- write the notes\n';
    }
    return { tool: tool.name, input };
  };
  const steps: Array<(r: RecordedRequest) => Reply> = [
    () => ({ text: 'I will write the notes file first.', shell: "printf 'hello\\n' > notes.txt" }),
    fileCall,
    () => ({ text: `Done: notes.txt and todo.md are written. The token is ${FAKE_SECRET}.` }),
  ];
  const script: Script = (r) => {
    seen.push(r);
    return (steps.shift() ?? (() => ({ text: 'ok' })))(r);
  };
  server.script = script;
  const run1 = await droid(['Write the notes file'], user, server);
  console.log('run1', run1.code, run1.stdout.slice(-1500), run1.stderr.slice(-1500));
  console.log('tools', toolNames(seen[0] ?? ({} as RecordedRequest)).join(' '));
  const factory = join(user.home, '.factory');
  console.log('files', filesUnder(factory).join('\n'));
  const sessions = join(factory, 'sessions');
  const rel = filesUnder(sessions).find((f) => f.endsWith('.jsonl'));
  if (!rel) throw new Error('no session file');
  const id = rel.split('/').pop()!.replace(/\.jsonl$/, '');
  const before = filesUnder(sessions);

  steps.push(() => ({ text: 'Resumed: the notes are still there.' }));
  const run2 = await droid(['-s', id, 'Are the notes there?'], user, server);
  console.log('run2 (resume)', run2.code, run2.stdout.slice(-800), run2.stderr.slice(-800));
  const after = filesUnder(sessions);
  console.log('after resume', after.join('\n'));

  const v = DROID_PLATFORM_VERSION;
  const dest = keep('droid', `droid-${v}-session.jsonl`, join(sessions, rel), user);
  // The session's settings file (model, token totals) beside the transcript; its .bak is not kept.
  keep('droid', `droid-${v}-session.settings.json`, join(sessions, rel.replace(/\.jsonl$/, '.settings.json')), user);
  for (const f of after.filter((f) => !before.includes(f))) keep('droid', `droid-${v}-resume-${f.split('/').pop()}`, join(sessions, f), user);
  if (fs.existsSync(log)) {
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    fs.writeFileSync(join(dest, '..', `droid-${v}-hooks.jsonl`), `${stablePaths(lines.join('\n'), user)}\n`);
    const stop = lines.map((l) => JSON.parse(l)).find((l) => l.event === 'Stop');
    if (stop) fs.writeFileSync(join(FIXTURES, 'droid', 'Stop.json'), `${stablePaths(JSON.stringify(stop.payload, null, 2), user)}\n`);
  }
  console.log('kept', dest);
} finally {
  await server.close();
  removeUsers();
}
