// Records Gemini CLI's own chat file of a scripted session (offline, the stand-in model's
// Gemini API): a prompt, a text answer with a run_shell_command call that writes notes.txt, a
// write_file call of plan.md, a final answer; then `gemini --resume ID -p` adding one turn
// whose answer prints a fake secret. Copies what it wrote under ~/.gemini/tmp into
// test/fixtures/transcripts/gemini/ (paths made stable) and the payloads a logging hook saw
// into test/fixtures/providers/gemini/.
// Run: node --import tsx test/e2e/record-transcripts-gemini.ts
import { randomUUID } from 'node:crypto';
import { basename, join } from 'node:path';
import { agentsInstalled, assertAgentRan, GEMINI_VERSION, gemini, newUser, prepareGemini, removeUsers } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { copyFixture, copyHookLog, FAKE_SECRET, loggingHooks, queueScript, tree, writeHooks } from './record-transcripts-lib-gemini-family.ts';

if (!agentsInstalled().gemini) throw new Error(`Gemini CLI ${GEMINI_VERSION} is not installed in .e2e/agents`);
const server = await new ModelServer().start();
const user = newUser();
try {
  prepareGemini(user);
  const events = ['SessionStart', 'BeforeAgent', 'AfterAgent', 'PreCompress', 'SessionEnd'];
  writeHooks(join(user.home, '.gemini', 'settings.json'), loggingHooks(events, { name: 'log', timeout: 10000 }));
  const id = randomUUID();
  const queue = queueScript([
    { shell: "printf 'hello\\n' > notes.txt", text: 'I will write notes.txt first.' },
    { tool: 'write_file', input: { file_path: join(user.project, 'plan.md'), content: '# Plan\n\n- say hello\n' } },
    { text: 'Both files are written: notes.txt and plan.md.' },
  ]);
  server.script = (r) => {
    console.log('tools:', (r.body?.tools ?? []).flatMap((t: any) => (t?.functionDeclarations ?? []).map((f: any) => f.name)).join(' '));
    return queue(r);
  };
  const yolo = ['--approval-mode', 'yolo'];
  const first = await gemini(['--session-id', id, '-p', 'Write hello into notes.txt, then a plan in plan.md.', ...yolo], user, server);
  assertAgentRan('gemini', first, 'first run');
  server.script = queueScript([{ text: `The token you asked for is ${FAKE_SECRET} (a fake).` }]);
  const second = await gemini(['--resume', id, '-p', 'Print the token.', ...yolo], user, server);
  assertAgentRan('gemini', second, 'resumed run');
  const written = tree(join(user.home, '.gemini'));
  console.log(written.join('\n'));
  for (const f of written.filter((f) => /\/chats\//.test(f) || f.endsWith('logs.json'))) {
    const name = f.includes('/chats/') ? `gemini-${GEMINI_VERSION}-${basename(f)}` : `gemini-${GEMINI_VERSION}-logs.json`;
    console.log('wrote', copyFixture('gemini', join(user.home, '.gemini', f), name, user));
  }
  console.log('wrote', copyHookLog('gemini', `observed-${GEMINI_VERSION}-turn-end.jsonl`, user));
} finally {
  await server.close();
  removeUsers();
}
