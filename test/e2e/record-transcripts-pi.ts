// Records what pi (the pinned real program) writes for a scripted session, offline against the
// stand-in model, into test/fixtures/transcripts/pi/ (the reader's fixtures), and the payload
// of its agent_end event (a logging extension: the turn end baton's extension forwards) into
// test/fixtures/providers/pi/. Run by hand: `node --import tsx test/e2e/record-transcripts-pi.ts`.
// The session: a prompt; a shell call writing notes.txt; a `write` call; a text answer; then
// `pi --session ID -p ...` resuming it with one more turn whose answer prints a fake secret.
// Temp paths are replaced by /tmp/rec/...; every other byte is as pi wrote it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { agentsInstalled, newUser, PI_VERSION, pi, preparePi, removeUsers } from './agents.ts';
import { ModelServer, type Reply } from './model-server.ts';

export const FAKE_SECRET = `ghp_${'A1b2C3d4E5'.repeat(3)}x9Y8z7`;
const OUT = join(import.meta.dirname, '..', 'fixtures', 'transcripts', 'pi');
const HOOKS_OUT = join(import.meta.dirname, '..', 'fixtures', 'providers', 'pi');

/** A logging extension: every agent_end / turn_end payload pi hands an extension, one JSON line each, with the session file's size then (is the turn already on disk?). */
const LOGGER = (log: string) => `import { appendFileSync, statSync } from "node:fs";
export default function (pi: any): void {
  for (const name of ["agent_end", "turn_end"]) {
    pi.on(name, async (event: any, ctx: any) => {
      appendFileSync(${JSON.stringify(log)}, JSON.stringify({ name, event, session_id: ctx.sessionManager.getSessionId(), session_file: ctx.sessionManager.getSessionFile(), session_file_bytes: statSync(ctx.sessionManager.getSessionFile()).size, cwd: ctx.cwd }) + "\\n");
    });
  }
}
`;

async function main(): Promise<void> {
  assert.ok(agentsInstalled().pi, `pi ${PI_VERSION} is not installed in .e2e/agents`);
  const server = await new ModelServer().start();
  const user = newUser();
  try {
    preparePi(user, server);
    const log = join(user.home, 'hook-log.jsonl');
    fs.mkdirSync(join(user.home, '.pi', 'agent', 'extensions'), { recursive: true });
    fs.writeFileSync(join(user.home, '.pi', 'agent', 'extensions', 'log.ts'), LOGGER(log));
    let queue: Reply[] = [];
    server.script = () => queue.shift();

    queue = [
      { shell: "printf 'hello\\n' > notes.txt", text: 'I will write the notes first.' },
      { tool: 'write', input: { path: 'poem.txt', content: 'roses are red\n' }, text: 'Now the poem.' },
      { text: 'Done: notes.txt and poem.txt are written.' },
    ];
    const r1 = await pi(['-p', 'Write hello into notes.txt and a poem into poem.txt'], user, server);
    assert.equal(r1.code, 0, r1.stderr);
    assert.equal(fs.readFileSync(join(user.project, 'notes.txt'), 'utf8'), 'hello\n');
    const dir = join(user.home, '.pi', 'agent', 'sessions');
    const [folder] = fs.readdirSync(dir);
    const [file] = fs.readdirSync(join(dir, folder));
    const id = /_([0-9a-f-]+)\.jsonl$/.exec(file)![1];
    const first = fs.readFileSync(join(dir, folder, file), 'utf8');

    queue = [{ text: `Here is the token you asked for: ${FAKE_SECRET}` }];
    const r2 = await pi(['--session', id, '-p', 'Print the deploy token'], user, server);
    assert.equal(r2.code, 0, r2.stderr);
    assert.deepEqual(fs.readdirSync(join(dir, folder)), [file], 'the resumed run appends to the same file');
    const second = fs.readFileSync(join(dir, folder, file), 'utf8');
    assert.ok(second.startsWith(first), 'the resumed run only appends');

    const encoded = `--${user.project.replace(/^\//, '').replace(/[/\\:]/g, '-')}--`;
    const stable = (s: string) => s.split(user.project).join('/tmp/rec/project').split(user.home).join('/tmp/rec/home').split(encoded).join('--tmp-rec-project--');
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(join(OUT, `pi-${PI_VERSION}-session.first.jsonl`), stable(first));
    fs.writeFileSync(join(OUT, `pi-${PI_VERSION}-session.jsonl`), stable(second));
    fs.mkdirSync(HOOKS_OUT, { recursive: true });
    fs.writeFileSync(join(HOOKS_OUT, `observed-${PI_VERSION}-agent-end.jsonl`), stable(fs.readFileSync(log, 'utf8')));
    console.log(`session ${id} (${folder}/${file}): ${first.length} then ${second.length} bytes`);
  } finally {
    await server.close();
    removeUsers();
  }
}

await main();
