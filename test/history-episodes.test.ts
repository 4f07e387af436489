// History import records the agent's runs as episodes (docs/history.md, "Episodes"): one per
// run where the transcript tells runs apart (Claude Code, Codex, Copilot CLI), else one for the
// import; the run's items between its episode.opened and episode.closed. Over the fixtures.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EventLine } from '../src/schemas/event.ts';
import { tooDeep } from '../src/transcripts/parse.ts';
import { baton, tmpDir } from './helpers.ts';
import { agentEnv, assertOnce, fakeAgentStore, itemsOf } from './history-helpers.ts';

const eventsOf = (bh: string, id: string): any[] =>
  fs
    .readFileSync(join(bh, 'sessions', id, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** The log as [episode source, its item count, its closing prompts] per episode, checking each item sits inside one. */
function episodesOf(events: any[]): { source: string; items: any[]; opened: any; closed: any }[] {
  const out: { source: string; items: any[]; opened: any; closed: any }[] = [];
  let open: { source: string; items: any[]; opened: any; closed: any } | null = null;
  for (const e of events) {
    if (e.type === 'episode.opened') {
      assert.equal(open, null, 'episodes do not overlap');
      open = { source: e.payload.source, items: [], opened: e, closed: null };
    } else if (e.type === 'episode.closed') {
      assert.ok(open && open.opened.payload.episode === e.payload.episode, 'closes the open episode');
      open.closed = e;
      out.push(open);
      open = null;
    } else if (e.type === 'transcript.item') {
      if (open) open.items.push(e);
      else out.push({ source: '(outside)', items: [e], opened: null, closed: null });
    }
  }
  assert.equal(open, null, 'every episode closed');
  return out;
}

test('import: an episode per run the transcript records, its items inside it; one for the import elsewhere; none twice', () => {
  const root = tmpDir('baton-history-ep-');
  const home = join(root, 'home');
  const bh = join(root, 'baton');
  fs.mkdirSync(home);
  const sessions = fakeAgentStore(home);
  const run = (args: string[]) => baton(args, { home: bh, env: agentEnv(home) });
  const r = run(['--json', 'history', 'import', '--all']);
  assert.equal(r.code, 0, r.stderr);
  const byAgent = new Map(sessions.map((s) => [s.agent, s]));

  const claude = byAgent.get('claude')!;
  const eps = episodesOf(eventsOf(bh, claude.id));
  assert.deepEqual(
    eps.map((e) => e.source),
    ['startup', 'resume', 'resume'],
    'claude -p, then two --resume -p runs',
  );
  assert.equal(eps[1].items[0].payload.text, 'Print the token.', 'the resume run starts with its prompt');
  assert.ok(
    eps[2].items.some((e) => e.payload.text === '/compact'),
    'the /compact run holds its command',
  );
  for (const e of eps) {
    assert.deepEqual(
      [e.opened.payload.provider, e.opened.payload.provider_session_id, e.opened.payload.transcript_path, e.closed.payload.outcome, e.closed.payload.prompts],
      ['claude', claude.id, claude.path, 'closed', 1],
    );
    assert.match(e.opened.payload.episode, /^claude-[0-9a-z]+-[0-9a-z]{4}$/);
    assert.ok(e.closed.payload.duration_ms > 0 && e.closed.payload.duration_ms < 10_000, `a run's duration from its records: ${e.closed.payload.duration_ms}`);
  }
  // The first run: from its prompt (00:38:11.045) to its last answer (00:38:13.513).
  assert.equal(eps[0].closed.payload.duration_ms, 2468);

  const codex = episodesOf(eventsOf(bh, byAgent.get('codex')!.id));
  assert.deepEqual(
    codex.map((e) => [e.source, e.closed.payload.prompts]),
    [
      ['startup', 1],
      ['resume', 1],
    ],
    'codex exec, then exec resume',
  );
  assert.equal(codex[1].items[0].payload.text, 'Are the notes there?');

  const copilot = episodesOf(eventsOf(bh, byAgent.get('copilot')!.id));
  assert.deepEqual(
    copilot.map((e) => [e.source, e.closed.payload.reason]),
    [
      ['startup', 'routine'],
      ['resume', 'routine'],
      ['resume', 'routine'],
    ],
    'a run, its resume and a compaction run, each shut down in order',
  );

  // The agents whose files record no runs: one episode for the import, every item inside it.
  for (const agent of ['qwen', 'droid', 'pi', 'gemini']) {
    const e = episodesOf(eventsOf(bh, byAgent.get(agent)!.id));
    assert.deepEqual(
      e.map((x) => x.source),
      ['import'],
      agent,
    );
    assert.equal(e[0].items.length, itemsOf(bh, byAgent.get(agent)!.id).length, `${agent}: every item inside the episode`);
  }
  // Database sessions: one episode for the import, after its items.
  for (const agent of ['opencode', 'kilo']) {
    const evs = eventsOf(bh, byAgent.get(agent)!.id);
    assert.deepEqual(
      evs.filter((e) => e.type.startsWith('episode.')).map((e) => [e.type, e.payload.source ?? e.payload.reason]),
      [
        ['episode.opened', 'import'],
        ['episode.closed', 'imported'],
      ],
      agent,
    );
    // It closes at the session's last activity: no item of it is later (the session row's own
    // time_updated can be older than its last part).
    const closedAt = evs.find((e) => e.type === 'episode.closed').payload.at;
    for (const i of itemsOf(bh, byAgent.get(agent)!.id)) assert.ok(i.payload.at <= closedAt, `${agent}: item at ${i.payload.at} after the close at ${closedAt}`);
  }

  // Every item once, inside an episode; every event as its schema says; a second import adds no episode.
  for (const s of sessions) {
    assertOnce(itemsOf(bh, s.id));
    for (const e of eventsOf(bh, s.id)) {
      const r = EventLine.safeParse(e);
      assert.ok(r.success, `${s.agent} ${e.type} matches the event schema: ${JSON.stringify(r.error?.issues)}`);
    }
  }
  const count = (id: string) => eventsOf(bh, id).filter((e) => e.type === 'episode.opened').length;
  const before = sessions.map((s) => count(s.id));
  const again = run(['--json', 'history', 'import', '--all']);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    sessions.map((s) => count(s.id)),
    before,
  );

  // session log shows them.
  const log = run(['--json', 'session', 'log', claude.id]);
  assert.equal(log.code, 0, log.stderr);
  assert.equal(JSON.stringify(log.json).split('"episode.opened"').length - 1, 3, 'session log lists the three episodes');
  fs.rmSync(root, { recursive: true, force: true });
});

test('the depth check skips strings by their closing quote and agrees with a walk of every character', () => {
  const walk = (text: string, max: number): boolean => {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 92) i++;
        else if (c === 34) inString = false;
      } else if (c === 34) inString = true;
      else if (c === 123 || c === 91) {
        if (++depth > max) return true;
      } else if (c === 125 || c === 93) depth--;
    }
    return false;
  };
  const atoms = ['[', ']', '{', '}', '"', '\\', 'a', ':'];
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let t = 0; t < 20000; t++) {
    let s = '';
    for (let i = Math.floor(rnd() * 30); i > 0; i--) s += atoms[Math.floor(rnd() * atoms.length)];
    for (const max of [1, 2, 3]) assert.equal(tooDeep(s, max), walk(s, max), `${JSON.stringify(s)} at ${max}`);
  }
  assert.equal(tooDeep('['.repeat(257)), true);
  assert.equal(tooDeep(`"\\\\"${'['.repeat(257)}`), true, 'an escaped backslash ends before the quote');
  assert.equal(tooDeep(`"\\"${'['.repeat(257)}`), false, 'an escaped quote does not end the string');
  assert.equal(tooDeep(`${'{"a":'.repeat(256)}1${'}'.repeat(256)}`), false);
});
