// `baton install PROVIDER --aspects mcp` (mcp.md, Install): for Claude Code, Gemini CLI and
// Codex, the server goes into the agent's MCP configuration as a text edit (comments and
// foreign keys kept), status and verify (which spawns the configured server and lists its
// tools) see it, and uninstall gives the original bytes back. Refusals change nothing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type AgentWorld, agentWorld, baton, treeHash } from './helpers.ts';

function world(): AgentWorld {
  const w = agentWorld();
  execFileSync('git', ['init', '-q'], { cwd: w.project });
  return w;
}

const run = (w: AgentWorld, args: string[]) => baton(args, { env: w.env, cwd: w.project });

interface Case {
  provider: string;
  scope: string;
  file: (w: AgentWorld) => string;
  /** The file as the user had it (null: none). */
  original: string | null;
  /** Reads the configured server back. */
  entry: (text: string, w: AgentWorld) => { command: string; args: string[] } | undefined;
}

const CLAUDE_JSON = '{\n  "numStartups": 3,\n  "projects": {},\n  "mcpServers": {\n    "other": { "command": "other-server" }\n  }\n}\n';
const GEMINI = '{\n  // the user\'s comment\n  "theme": "dark",\n  "hooks": {}\n}\n';
const CODEX = '# my Codex config\nmodel = "o3" # inline comment\n\n[mcp_servers.other]\ncommand = "other"\n\n[profiles.fast]\nmodel = "o4-mini"\n';

const json = (text: string) => JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
const CASES: Case[] = [
  { provider: 'claude', scope: 'user', file: (w) => join(w.home, '.claude.json'), original: CLAUDE_JSON, entry: (t) => json(t).mcpServers?.baton },
  { provider: 'claude', scope: 'local', file: (w) => join(w.home, '.claude.json'), original: CLAUDE_JSON, entry: (t, w) => json(t).projects?.[w.project]?.mcpServers?.baton },
  { provider: 'claude', scope: 'project', file: (w) => join(w.project, '.mcp.json'), original: null, entry: (t) => json(t).mcpServers?.baton },
  { provider: 'gemini', scope: 'user', file: (w) => join(w.home, '.gemini', 'settings.json'), original: GEMINI, entry: (t) => json(t).mcpServers?.baton },
  { provider: 'gemini', scope: 'project', file: (w) => join(w.project, '.gemini', 'settings.json'), original: null, entry: (t) => json(t).mcpServers?.baton },
  {
    provider: 'codex',
    scope: 'user',
    file: (w) => join(w.home, '.codex', 'config.toml'),
    original: CODEX,
    entry: (t) => {
      const m = /\[mcp_servers\.baton\]\ncommand = (".*")\nargs = (\[.*\])\n/.exec(t);
      return m ? { command: JSON.parse(m[1]), args: JSON.parse(m[2]) } : undefined;
    },
  },
  { provider: 'codex', scope: 'project', file: (w) => join(w.project, '.codex', 'config.toml'), original: null, entry: () => undefined },
];

for (const c of CASES) {
  test(`${c.provider} --scope ${c.scope}: install adds the server, status and verify see it, uninstall gives the bytes back`, () => {
    const w = world();
    const file = c.file(w);
    if (c.original !== null) {
      fs.mkdirSync(join(file, '..'), { recursive: true });
      fs.writeFileSync(file, c.original);
    }
    const dry = run(w, ['install', c.provider, '--scope', c.scope, '--aspects', 'mcp', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /\+ .*baton/);
    assert.equal(c.original === null ? fs.existsSync(file) : fs.readFileSync(file, 'utf8'), c.original === null ? false : c.original, 'a dry run writes nothing');

    const r = run(w, ['install', c.provider, '--scope', c.scope, '--aspects', 'mcp', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json.mcp.written, true);
    const text = fs.readFileSync(file, 'utf8');
    if (c.original !== null) {
      assert.equal(fs.readFileSync(`${file}.baton-backup`, 'utf8'), c.original);
      // Everything the user had is still there, byte for byte, in order.
      for (const line of c.original.split('\n').filter((l) => l.trim() && !/[{}]/.test(l))) assert.ok(text.includes(line.trim()), `lost: ${line}`);
    }
    if (c.provider !== 'codex' || c.scope === 'user') {
      const e = c.entry(text, w);
      assert.ok(e, text);
      if (c.scope === 'project') assert.deepEqual(e, { command: 'baton', args: ['mcp'] });
      // The store is not the default one (BATON_HOME): the entry names it (issue 29.3).
      else assert.deepEqual(e.args.slice(1), ['mcp', '--home', w.store]);
    } else assert.match(text, /^\[mcp_servers\.baton\]\ncommand = "baton"\nargs = \["mcp"\]\n$/);
    // Hooks are not installed by --aspects mcp alone.
    assert.ok(!fs.existsSync(join(w.project, '.baton')));

    const again = run(w, ['install', c.provider, '--scope', c.scope, '--aspects', 'mcp', '--json']);
    assert.equal(again.json.mcp.written, false, 'idempotent');
    assert.equal(fs.readFileSync(file, 'utf8'), text);

    const st = run(w, ['status', '--json']);
    const row = st.json.rows.find((x: { row: string }) => x.row === `${c.provider}:mcp`);
    assert.equal(row.state, 'wired');
    assert.deepEqual(row.scopes, [c.scope]);

    if (c.scope !== 'project') {
      // The configured command is spawned as the agent would spawn it: initialize + tools/list.
      const v = run(w, ['verify', c.provider, '--json']);
      assert.equal(v.code, 0, v.stdout + v.stderr);
      const mcpRow = v.json.entries.find((x: { event: string }) => x.event === 'mcp');
      assert.equal(mcpRow.ok, true, JSON.stringify(mcpRow));
    }

    const u = run(w, ['uninstall', c.provider, '--json']);
    assert.equal(u.code, 0, u.stderr);
    assert.equal(u.json.mcp_removed.length, 1);
    if (c.original === null) assert.equal(fs.existsSync(file), false, 'the file baton created is gone');
    else assert.equal(fs.readFileSync(file, 'utf8'), c.original, 'byte-identical after uninstall');
    assert.equal(fs.existsSync(`${file}.baton-backup`), false, 'the backup is removed once the file is back to it');
  });
}

test('claude user and local together come out byte-identical, whichever order', () => {
  const w = world();
  const file = join(w.home, '.claude.json');
  fs.writeFileSync(file, CLAUDE_JSON);
  assert.equal(run(w, ['install', 'claude', '--scope', 'local', '--aspects', 'mcp']).code, 0);
  assert.equal(run(w, ['install', 'claude', '--scope', 'user', '--aspects', 'mcp']).code, 0);
  assert.equal(run(w, ['uninstall', 'claude', '--scope', 'user']).code, 0);
  assert.equal(run(w, ['uninstall', 'claude', '--scope', 'local']).code, 0);
  assert.equal(fs.readFileSync(file, 'utf8'), CLAUDE_JSON);
});

test("a server named baton that is not this baton's is refused (HK101) and --force replaces it with a backup; a broken file is HK102", () => {
  const w = world();
  const file = join(w.home, '.gemini', 'settings.json');
  fs.mkdirSync(join(file, '..'), { recursive: true });
  const foreign = '{\n  "mcpServers": {\n    "baton": { "command": "someone-elses-baton-thing" }\n  }\n}\n';
  fs.writeFileSync(file, foreign);
  const before = treeHash(w.root);
  const r = run(w, ['install', 'gemini', '--aspects', 'mcp']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /HK101 .*not baton's/);
  assert.equal(treeHash(w.root), before, 'nothing changed');
  // An earlier baton's entry (another path) differs: HK101 too, and --force replaces it.
  const earlier = '{\n  "mcpServers": {\n    "baton": { "command": "node", "args": ["/old/bin/baton.cjs", "mcp"] }\n  }\n}\n';
  fs.writeFileSync(file, earlier);
  const r2 = run(w, ['install', 'gemini', '--aspects', 'mcp']);
  assert.match(r2.stderr, /HK101 .*earlier baton's/);
  assert.equal(fs.readFileSync(file, 'utf8'), earlier);
  const st = run(w, ['status', '--json']);
  assert.equal(st.json.rows.find((x: { row: string }) => x.row === 'gemini:mcp').state, 'partial');
  assert.match(run(w, ['doctor']).stdout, /gemini:mcp: user: .* earlier baton/);
  const f = run(w, ['install', 'gemini', '--aspects', 'mcp', '--force', '--json']);
  assert.equal(f.code, 0, f.stderr);
  assert.equal(fs.readFileSync(`${file}.baton-backup`, 'utf8'), earlier);
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.baton.args[1], 'mcp');

  const broken = join(w.home, '.codex', 'config.toml');
  fs.mkdirSync(join(broken, '..'), { recursive: true });
  fs.writeFileSync(broken, 'this is = = not toml\n');
  const b0 = treeHash(w.root);
  const b = run(w, ['install', 'codex', '--aspects', 'mcp']);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /HK102/);
  assert.equal(treeHash(w.root), b0);
});

test('--aspects prompt,mcp installs the hook entries and the server; a provider scope without MCP is USAGE', () => {
  const w = world();
  const r = run(w, ['install', 'claude', '--aspects', 'prompt,mcp', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json.added, ['UserPromptSubmit']);
  assert.equal(r.json.mcp.written, true);
  const before = treeHash(w.root);
  const bad = run(w, ['install', 'gemini', '--scope', 'local', '--aspects', 'mcp']);
  assert.equal(bad.code, 2);
  assert.equal(treeHash(w.root), before);
});
