// What a transcript says reaches a terminal only as text (cli.md, "Human output"): escape
// sequences and other control characters an agent's transcript carries (a prompt pasted with
// colour codes, a tool's output that clears the screen or sets the window title) are shown as
// `?` by `session log`, `session show`, `search` and `continue --print`; `--json` keeps the
// text as it was stored. The session is made through the real hook over a copy of Claude Code's
// real transcript with those characters put in.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, baton, tmpDir } from './helpers.ts';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl');
const SID = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';
const HOSTILE = 'Write \x1b[31mhello\x1b[0m \x07into\x1b]0;pwned\x07 notes.txt\x00 \x1b[2J\x1b[H now\r';

test('control characters from a transcript reach a terminal as ?: session log, show, search, continue --print; --json keeps them', () => {
  const root = tmpDir('baton-term-');
  const home = join(root, 'home');
  const project = join(root, 'proj');
  const bin = join(root, 'bin');
  for (const d of [home, project, bin]) fs.mkdirSync(d, { recursive: true });
  const env = { HOME: home, BATON_HOME: join(root, 'store'), PATH: `${bin}:/usr/bin:/bin` };
  const dir = join(home, '.claude', 'projects', '-proj');
  fs.mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${SID}.jsonl`);
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n');
  lines[2] = JSON.stringify({ ...JSON.parse(lines[2]), message: { role: 'user', content: HOSTILE } });
  fs.writeFileSync(transcript, lines.join('\n'));
  for (const ev of [{ hook_event_name: 'SessionStart', source: 'startup' }, { hook_event_name: 'Stop' }]) {
    const r = baton(['hook', 'claude'], { env, cwd: project, input: JSON.stringify({ session_id: SID, cwd: project, transcript_path: transcript, ...ev }) });
    assert.equal(r.code, 0, r.stderr);
  }
  fs.writeFileSync(join(bin, 'codex'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });

  const control = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
  const outputs: Record<string, string> = {
    log: baton(['session', 'log', SID], { env }).stdout,
    show: baton(['session', 'show', SID], { env }).stdout,
    search: baton(['search', '--all', 'hello'], { env }).stdout,
    continue: baton(['continue', SID, '--in', 'codex', '--print', '--workspace', project], { env }).stdout,
  };
  for (const [name, out] of Object.entries(outputs)) {
    assert.ok(out.length > 0, `${name} printed something`);
    assert.doesNotMatch(out, control, `${name} printed a control character: ${JSON.stringify(out.match(control)?.[0])}`);
  }
  // The prompt is still readable where it is shown, each control character one `?` (the
  // transcript's colour codes dropped: colour is off in a pipe).
  assert.match(outputs.log, /Write hello \?into\?\]0;pwned\? notes\.txt\? \?\[2J\?\[H now/);
  // The handoff block (text for the agent too) shows every escape, colour included, as `?`.
  assert.match(outputs.continue, /Write \?\[31mhello\?\[0m \?into\?\]0;pwned\? notes\.txt\? \?\[2J\?\[H now\n/);
  // --json: the text as stored (JSON escapes it).
  const json = baton(['--json', 'session', 'log', SID], { env }).json;
  const texts = json.events.filter((e: { type: string }) => e.type === "transcript.item").map((e: { payload: { text?: string } }) => e.payload.text);
  assert.ok(texts.includes(HOSTILE), JSON.stringify(texts.slice(0, 2)));
});
