// Records Claude Code's own transcript of a scripted session (offline, the stand-in model):
// a prompt, a text answer with a Bash call that writes notes.txt, a Write call of plan.md, a
// final answer; then `claude --resume ID -p` adding one turn whose answer prints a fake
// secret, then `claude --resume ID -p /compact`. Copies the session file into test/fixtures/transcripts/claude/ (paths made stable)
// and the hook payloads a logging hook saw into test/fixtures/providers/claude/.
// Run: node --import tsx test/e2e/record-transcripts-claude.ts
import { join } from 'node:path';
import { agentsInstalled, assertAgentRan, CLAUDE_VERSION, claude, newUser, removeUsers } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { copyFixture, copyHookLog, FAKE_SECRET, loggingHooks, queueScript, tree, writeHooks } from './record-transcripts-lib-gemini-family.ts';
import { isSummaryRequest } from './scenario.ts';

if (!agentsInstalled().claude) throw new Error(`Claude Code ${CLAUDE_VERSION} is not installed in .e2e/agents`);
const server = await new ModelServer().start();
const user = newUser();
try {
  writeHooks(join(user.home, '.claude', 'settings.json'), loggingHooks(['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'PreCompact', 'SessionEnd']));
  server.script = queueScript([
    { shell: "printf 'hello\\n' > notes.txt", text: 'I will write notes.txt first.' },
    { tool: 'Write', input: { file_path: join(user.project, 'plan.md'), content: '# Plan\n\n- say hello\n' } },
    { text: 'Both files are written: notes.txt and plan.md.' },
  ]);
  const tools = ['--allowedTools', 'Bash', 'Write', '--output-format', 'json'];
  const first = await claude(['-p', 'Write hello into notes.txt, then a plan in plan.md.', ...tools], user, server);
  assertAgentRan('claude', first, 'first run');
  const id = JSON.parse(first.stdout).session_id as string;
  server.script = queueScript([{ text: `The token you asked for is ${FAKE_SECRET} (a fake).` }]);
  const second = await claude(['--resume', id, '-p', 'Print the token.', ...tools], user, server);
  assertAgentRan('claude', second, 'resumed run');
  server.script = (r) => (isSummaryRequest(r) ? { text: '<summary>The user asked for notes.txt and plan.md; both are written.</summary>' } : { text: 'ok' });
  const third = await claude(['--resume', id, '-p', '/compact', ...tools], user, server);
  assertAgentRan('claude', third, 'compact run');
  console.log(tree(user.home).join('\n'));
  const file = tree(join(user.home, '.claude', 'projects')).find((f) => f.endsWith(`${id}.jsonl`));
  if (!file) throw new Error(`no transcript of ${id}`);
  console.log('wrote', copyFixture('claude', join(user.home, '.claude', 'projects', file), `claude-${CLAUDE_VERSION}-session.jsonl`, user));
  console.log('wrote', copyHookLog('claude', `observed-${CLAUDE_VERSION}-turn-end.jsonl`, user));
} finally {
  await server.close();
  removeUsers();
}
