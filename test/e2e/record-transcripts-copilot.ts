// Records what GitHub Copilot CLI (the pinned real program, offline: BYOK against the stand-in
// model) writes as its session transcript, into test/fixtures/transcripts/copilot/: a first
// `copilot -p` run (a prompt, a text answer, a bash call writing notes.txt, a file-create tool
// call, an answer printing a fake secret), then `copilot --resume=ID -p` adding one turn, then `copilot --resume=ID -p /compact`. A
// logging hook file (~/.copilot/hooks/log.json) keeps every payload with its event name
// (test/fixtures/providers/copilot/agentStop.json). Run by hand:
//   node --import tsx test/e2e/record-transcripts-copilot.ts
import * as fs from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers.ts';
import { agentsInstalled, COPILOT_VERSION, copilot, newUser, removeUsers } from './agents.ts';
import { ModelServer, type RecordedRequest, type Reply } from './model-server.ts';
import { FAKE_SECRET, filesUnder, keep, logHookCommand, queueScript, stablePaths, toolNames } from './record-transcripts-lib.ts';

if (!agentsInstalled().copilot) throw new Error(`GitHub Copilot CLI ${COPILOT_VERSION} is not installed in .e2e/agents`);
const server = await new ModelServer().start();
const user = newUser();
try {
  const log = join(user.home, 'hooks.log');
  const events = ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'agentStop', 'subagentStop', 'preCompact', 'sessionEnd', 'errorOccurred'];
  const hooks: Record<string, unknown> = {};
  for (const ev of events) hooks[ev] = [{ type: 'command', bash: logHookCommand(log, ev), timeoutSec: 10 }];
  fs.mkdirSync(join(user.home, '.copilot', 'hooks'), { recursive: true });
  fs.writeFileSync(join(user.home, '.copilot', 'hooks', 'log.json'), JSON.stringify({ version: 1, hooks }, null, 2));

  const seen: RecordedRequest[] = [];
  const edit = (process.env.RECORD_EDIT_TOOL || 'create') as string;
  const editInput = JSON.parse(process.env.RECORD_EDIT_INPUT || JSON.stringify({ path: join(user.project, 'todo.md'), file_text: '- write the notes\n' }));
  const first: Reply[] = [
    { text: 'I will write the notes file first.', shell: "printf 'hello\\n' > notes.txt" },
    { tool: edit, input: editInput },
    { text: `Done: notes.txt and todo.md are written. The token is ${FAKE_SECRET}.` },
  ];
  server.script = queueScript(first, seen);
  const run1 = await copilot(['-p', 'Write the notes file'], user, server);
  console.log('run1', run1.code, run1.stdout.slice(-1500), run1.stderr.slice(-1500));
  console.log('tools', toolNames(seen[0] ?? ({} as RecordedRequest)).join(' '));
  const tools = (seen[0]?.body?.tools ?? []).filter((t: any) => /create|edit|write/i.test(t?.function?.name ?? ''));
  console.log('edit tools', JSON.stringify(tools).slice(0, 300));
  const state = join(user.home, '.copilot');
  console.log('files', filesUnder(state).join('\n'));
  const id = fs.readdirSync(join(state, 'session-state')).find((n) => /^[0-9a-f-]{36}$/.test(n));
  if (!id) throw new Error('no session folder');
  const file = join(state, 'session-state', id, 'events.jsonl');
  const afterFirst = fs.readFileSync(file, 'utf8');
  console.log('first run lines', afterFirst.split('\n').length - 1);

  server.script = queueScript([{ text: 'Resumed: the notes are still there.' }], seen);
  const run2 = await copilot([`--resume=${id}`, '-p', 'Are the notes there?'], user, server);
  console.log('run2', run2.code, run2.stdout.slice(-500), run2.stderr.slice(-1000));
  console.log('after resume', filesUnder(state).join('\n'));
  // A compaction: `/compact` in print mode (the stand-in answers the summary request).
  server.script = queueScript([{ text: '<summary>The notes file was written and checked.</summary>' }], seen);
  const run3 = await copilot([`--resume=${id}`, '-p', '/compact'], user, server);
  console.log('run3', run3.code, run3.stdout.slice(-500), run3.stderr.slice(-1000));

  const v = COPILOT_VERSION;
  const dest = keep('copilot', `copilot-${v}-session.jsonl`, file, user);
  keep('copilot', `copilot-${v}-workspace.yaml`, join(state, 'session-state', id, 'workspace.yaml'), user);
  const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
  fs.writeFileSync(join(dest, '..', `copilot-${v}-hooks.jsonl`), `${stablePaths(lines.join('\n'), user)}\n`);
  const stop = lines.map((l) => JSON.parse(l)).find((l) => l.event === 'agentStop');
  if (stop) fs.writeFileSync(join(FIXTURES, 'copilot', 'agentStop.json'), `${stablePaths(JSON.stringify(stop.payload, null, 2), user)}\n`);
  console.log('kept', dest);
} finally {
  await server.close();
  removeUsers();
}
