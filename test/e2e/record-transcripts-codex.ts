// Records what Codex CLI (the pinned real program, offline against the stand-in model) writes
// as its session transcript, into test/fixtures/transcripts/codex/: a first `codex exec` run
// (a prompt, a text answer, an exec_command shell call writing notes.txt, a reasoning summary,
// an answer printing a fake secret; this version offers the model no apply_patch tool), then `codex exec resume ID` adding one turn. A logging
// hook keeps the Stop payloads (test/fixtures/providers/codex/Stop.json). Run by hand:
//   node --import tsx test/e2e/record-transcripts-codex.ts
import * as fs from 'node:fs';
import { join } from 'node:path';
import { agentsInstalled, CODEX_VERSION, codex, newUser, prepareCodex, removeUsers } from './agents.ts';
import { ModelServer, type RecordedRequest, type Reply } from './model-server.ts';
import { FAKE_SECRET, filesUnder, keep, logHookCommand, queueScript, stablePaths, } from './record-transcripts-lib.ts';
import { FIXTURES } from '../helpers.ts';

if (!agentsInstalled().codex) throw new Error(`Codex CLI ${CODEX_VERSION} is not installed in .e2e/agents`);
const server = await new ModelServer().start();
const user = newUser();
try {
  prepareCodex(user, server);
  fs.mkdirSync(user.batonHome, { recursive: true });
  const log = join(user.home, 'hooks.log');
  const hooks: Record<string, unknown> = {};
  for (const ev of ['SessionStart', 'UserPromptSubmit', 'Stop', 'PreCompact', 'SessionEnd']) hooks[ev] = [{ hooks: [{ type: 'command', command: logHookCommand(log, ev), timeout: 10 }] }];
  fs.writeFileSync(join(user.home, '.codex', 'hooks.json'), JSON.stringify({ hooks }, null, 2));

  const seen: RecordedRequest[] = [];
  const first: Reply[] = [
    { text: 'I will write the notes file first.', shell: "printf 'hello\\n' > notes.txt" },
    { reasoning: 'The file is written; report it.', text: `Done: notes.txt is written. The token is ${FAKE_SECRET}.` },
  ];
  server.script = queueScript(first, seen);
  const run1 = await codex(['Write the notes file'], user, server);
  console.log('run1', run1.code, run1.stderr.slice(-2000));
  console.log('tools', JSON.stringify((seen[0]?.body?.tools ?? []).map((t: any) => [t.type, t.name ?? t.function?.name, t.format?.type])));
  const sessions = join(user.home, '.codex', 'sessions');
  const rollouts = filesUnder(sessions);
  console.log('files', filesUnder(join(user.home, '.codex')).join('\n'));
  const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(rollouts[0] ?? '')?.[1];
  if (!id) throw new Error('no rollout file');
  const afterFirst = fs.readFileSync(join(sessions, rollouts[0]), 'utf8');

  server.script = queueScript([{ text: 'Resumed: the notes are still there.' }], seen);
  const run2 = await codex(['resume', id, 'Are the notes there?'], user, server);
  console.log('run2', run2.code, run2.stderr.slice(-1000));
  const after = filesUnder(sessions);
  console.log('after resume', after.join('\n'));

  const v = CODEX_VERSION;
  const dest = keep('codex', `codex-${v}-session.jsonl`, join(sessions, rollouts[0]), user);
  console.log('first run lines', afterFirst.split('\n').length - 1);
  for (const extra of after.filter((f) => f !== rollouts[0])) keep('codex', `codex-${v}-resume-${extra.split('/').pop()}`, join(sessions, extra), user);
  const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
  fs.writeFileSync(join(dest, '..', `codex-${v}-hooks.jsonl`), `${stablePaths(lines.join('\n'), user)}\n`);
  const stop = lines.map((l) => JSON.parse(l)).find((l) => l.event === 'Stop');
  if (stop) fs.writeFileSync(join(FIXTURES, 'codex', 'Stop.json'), `${stablePaths(JSON.stringify(stop.payload, null, 2), user)}\n`);
  console.log('kept', dest);
} finally {
  await server.close();
  removeUsers();
}
