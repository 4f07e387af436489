// Records what opencode (or Kilo, its fork: record-transcripts-kilo.ts) writes for a scripted
// session, offline against the stand-in model, into test/fixtures/transcripts/<agent>/, and
// the session.idle payloads a plugin sees into test/fixtures/providers/<agent>/. Run by hand:
// `node --import tsx test/e2e/record-transcripts-opencode.ts`.
// opencode 1.18.33 (and Kilo 7.7.7) keep sessions in SQLite (`opencode.db`: tables session,
// message, part, each row's `data` a JSON document), which the hook bundle cannot read. So two
// fixtures: `<agent>-<version>-db.json`, the session's rows as the database holds them (what
// history import reads through an injected SQLite handle), and `<agent>-<version>-messages.json`,
// what the plugin API (`client.session.messages`) returns inside the agent at session.idle —
// what baton's plugin sends in its turn-end payload. The session: a prompt; a bash call writing
// notes.txt; a `write` call; a text answer; then `run --session ID` resuming it with one turn
// whose answer prints a fake secret. Temp paths → /tmp/rec/...; everything else as written.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { agentsInstalled, KILO_VERSION, newUser, OPENCODE_VERSION, opencodeLike, prepareOpencodeLike, removeUsers } from './agents.ts';
import { ModelServer, type Reply } from './model-server.ts';

const FAKE_SECRET = `ghp_${'A1b2C3d4E5'.repeat(3)}x9Y8z7`;
const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** A logging plugin: each session.idle event, the event types seen, and the session's messages through the plugin's client. */
const LOGGER = (log: string) => `import { appendFileSync } from "node:fs";
export const RecordPlugin = async ({ client, directory }) => ({
  event: async ({ event }) => {
    appendFileSync(${JSON.stringify(`${log}.types`)}, event.type + "\\n");
    if (event.type !== "session.idle") return;
    let messages;
    try {
      messages = (await client.session.messages({ path: { id: event.properties.sessionID } })).data;
    } catch (e) {
      messages = "error: " + String(e);
    }
    appendFileSync(${JSON.stringify(log)}, JSON.stringify({ event, directory, messages }) + "\\n");
  },
});
`;

export async function recordOpencodeLike(agent: 'opencode' | 'kilo'): Promise<void> {
  const version = agent === 'opencode' ? OPENCODE_VERSION : KILO_VERSION;
  assert.ok(agentsInstalled()[agent], `${agent} ${version} is not installed in .e2e/agents`);
  const server = await new ModelServer().start();
  const user = newUser();
  const timeoutMs = 240_000;
  try {
    prepareOpencodeLike(user, server, agent);
    const log = join(user.home, 'hook-log.jsonl');
    fs.mkdirSync(join(user.home, '.config', agent, 'plugin'), { recursive: true });
    fs.writeFileSync(join(user.home, '.config', agent, 'plugin', 'record.js'), LOGGER(log));
    let queue: Reply[] = [];
    server.script = () => queue.shift();

    queue = [
      { shell: "printf 'hello\\n' > notes.txt", text: 'I will write the notes first.' },
      { tool: 'write', input: { filePath: join(user.project, 'poem.txt'), content: 'roses are red\n' }, text: 'Now the poem.' },
      { text: 'Done: notes.txt and poem.txt are written.' },
    ];
    const r1 = await opencodeLike(agent, ['run', 'Write hello into notes.txt and a poem into poem.txt'], user, server, { timeoutMs });
    assert.equal(r1.code, 0, r1.stderr);
    assert.equal(fs.readFileSync(join(user.project, 'notes.txt'), 'utf8'), 'hello\n');
    assert.equal(fs.readFileSync(join(user.project, 'poem.txt'), 'utf8'), 'roses are red\n');
    const db = join(user.home, '.local', 'share', agent, `${agent}.db`);
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const open = () => new Database(db, { readonly: true, fileMustExist: true });
    const h1 = open();
    const sessions = h1.prepare('SELECT id FROM session').all() as { id: string }[];
    h1.close();
    assert.equal(sessions.length, 1, 'one session');
    const id = sessions[0].id;

    queue = [{ text: `Here is the token you asked for: ${FAKE_SECRET}` }];
    const r2 = await opencodeLike(agent, ['run', '--session', id, 'Print the deploy token'], user, server, { timeoutMs });
    assert.equal(r2.code, 0, r2.stderr);

    const h = open();
    const tables = (h.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string; sql: string }[]).filter((t) => ['session', 'message', 'part'].includes(t.name));
    const rows = (table: string, where: string) => (h.prepare(`SELECT * FROM ${table} WHERE ${where} ORDER BY rowid`).all(id) as Record<string, unknown>[]).map((r) => ({ ...r, data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data }));
    const dump = {
      schema: Object.fromEntries(tables.map((t) => [t.name, t.sql])),
      session: rows('session', 'id = ?'),
      message: rows('message', 'session_id = ?'),
      part: rows('part', 'session_id = ?'),
    };
    h.close();

    const stable = (s: string) => s.split(user.project).join('/tmp/rec/project').split(user.home).join('/tmp/rec/home').split(user.project.slice(1)).join('tmp/rec/project');
    const out = join(FIXTURES, 'transcripts', agent);
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(join(out, `${agent}-${version}-db.json`), stable(`${JSON.stringify(dump, null, 1)}\n`));
    const idles = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(idles.length, 2, 'one session.idle per run');
    fs.writeFileSync(join(out, `${agent}-${version}-messages.first.json`), stable(`${JSON.stringify(idles[0].messages, null, 1)}\n`));
    fs.writeFileSync(join(out, `${agent}-${version}-messages.json`), stable(`${JSON.stringify(idles[1].messages, null, 1)}\n`));
    const hooks = join(FIXTURES, 'providers', agent);
    fs.mkdirSync(hooks, { recursive: true });
    fs.writeFileSync(join(hooks, `observed-${version}-session-idle.jsonl`), stable(`${idles.map((i) => JSON.stringify({ event: i.event, directory: i.directory })).join('\n')}\n`));
    const types = [...new Set(fs.readFileSync(`${log}.types`, 'utf8').trim().split('\n'))];
    console.log(`session ${id}: ${dump.message.length} messages, ${dump.part.length} parts; events: ${types.join(' ')}`);
  } finally {
    await server.close();
    removeUsers();
  }
}

if (import.meta.filename === process.argv[1]) await recordOpencodeLike('opencode');
