// Records Qwen Code's own transcript of a scripted session (offline, the stand-in model's
// Chat Completions): a prompt, a text answer with a run_shell_command call that writes
// notes.txt, a write_file call of plan.md, a final answer; then `qwen --resume ID -p` adding
// one turn whose answer prints a fake secret, then `qwen --resume ID -p /compress`. Copies
// the session file into test/fixtures/transcripts/qwen/ (paths made stable) and the payloads
// a logging hook saw into test/fixtures/providers/qwen/.
// Run: node --import tsx test/e2e/record-transcripts-qwen.ts
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { agentsInstalled, assertAgentRan, newUser, prepareQwen, QWEN_VERSION, qwen, removeUsers } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { copyFixture, copyHookLog, FAKE_SECRET, loggingHooks, queueScript, tree, writeHooks } from './record-transcripts-lib-gemini-family.ts';
import { isSummaryRequest } from './scenario.ts';

if (!agentsInstalled().qwen) throw new Error(`Qwen Code ${QWEN_VERSION} is not installed in .e2e/agents`);
const server = await new ModelServer().start();
const user = newUser();
try {
  prepareQwen(user);
  writeHooks(join(user.home, '.qwen', 'settings.json'), loggingHooks(['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'PreCompact', 'SessionEnd'], { name: 'log', timeout: 10000 }));
  const id = randomUUID();
  const queue = queueScript([
    { shell: "printf 'hello\\n' > notes.txt", text: 'I will write notes.txt first.' },
    { tool: 'write_file', input: { file_path: join(user.project, 'plan.md'), content: '# Plan\n\n- say hello\n' } },
    { text: 'Both files are written: notes.txt and plan.md.' },
  ]);
  server.script = (r) => {
    console.log('tools:', (r.body?.tools ?? []).map((t: any) => t?.function?.name).join(' '));
    return queue(r);
  };
  const first = await qwen(['--session-id', id, '-p', 'Write hello into notes.txt, then a plan in plan.md.'], user, server);
  assertAgentRan('qwen', first, 'first run');
  server.script = queueScript([{ text: `The token you asked for is ${FAKE_SECRET} (a fake).` }]);
  const second = await qwen(['--resume', id, '-p', 'Print the token.'], user, server);
  assertAgentRan('qwen', second, 'resumed run');
  server.script = (r) => (isSummaryRequest(r) ? { text: '<summary>The user asked for notes.txt and plan.md; both are written.</summary>' } : { text: 'The user asked for notes.txt and plan.md; both are written.' });
  const third = await qwen(['--resume', id, '-p', '/compress'], user, server);
  // 0.24.4 refuses a compression of so short a history ("Compression was not beneficial for
  // this history size.", exit 1): kept to show what it leaves in the file then.
  console.log('compress run:', third.code, third.stderr.trim().split('\n').at(-1));
  console.log(tree(user.home).join('\n'));
  const file = tree(join(user.home, '.qwen')).find((f) => f.endsWith(`${id}.jsonl`));
  if (!file) throw new Error(`no transcript of ${id}`);
  console.log('wrote', copyFixture('qwen', join(user.home, '.qwen', file), `qwen-${QWEN_VERSION}-session.jsonl`, user));
  console.log('wrote', copyHookLog('qwen', `observed-${QWEN_VERSION}-turn-end.jsonl`, user));
} finally {
  await server.close();
  removeUsers();
}
