// One envelope for every --json output (docs/cli.md, "JSON output"): every command of the
// command line, run with --json once to succeed and once to be refused, prints exactly one
// JSON document on stdout: {ok:true, ...} with exit 0, or {ok:false, error:{code, message,
// ...}} with exit 2. The list of commands is taken from the registered command tree, so a
// new command without a case here fails this test.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Command } from 'commander';
import { registerHookCommands } from '../src/cli/hooks.ts';
import { registerIndexCommands } from '../src/cli/index-commands.ts';
import { registerPointerCommands } from '../src/cli/pointer.ts';
import { registerRefCommands } from '../src/cli/ref.ts';
import { registerSessionCommands } from '../src/cli/session.ts';
import { agentWorld, baton } from './helpers.ts';

/** `hook` prints what the provider reads (hooks.md), not baton's envelope. */
const NOT_ENVELOPED = new Set(['hook']);

function leafCommands(): string[] {
  const program = new Command('baton');
  const globals = () => ({});
  registerSessionCommands(program, globals);
  registerPointerCommands(program, globals);
  registerRefCommands(program, globals);
  registerIndexCommands(program, globals);
  registerHookCommands(program, globals);
  const out: string[] = [];
  const walk = (c: Command, path: string[]): void => {
    if (c.commands.length === 0) out.push(path.join(' '));
    for (const sub of c.commands) walk(sub, [...path, sub.name()]);
  };
  for (const c of program.commands) walk(c, [c.name()]);
  return out.sort();
}

interface Case {
  /** argv after `baton --json` */
  args: string[];
  input?: string;
  /** ok:false expected (a refusal), with this code */
  refused?: string;
}

function checkEnvelope(label: string, r: { code: number; stdout: string; stderr: string }, refused?: string): void {
  assert.ok(r.stdout.endsWith('\n') && r.stdout.indexOf('\n') === r.stdout.length - 1, `${label}: exactly one line on stdout: ${JSON.stringify(r.stdout.slice(0, 300))} ${r.stderr}`);
  const doc = JSON.parse(r.stdout);
  assert.equal(typeof doc, 'object', label);
  assert.ok(doc !== null && !Array.isArray(doc), `${label}: an object`);
  if (refused) {
    assert.equal(r.code, 2, `${label}: exit 2 (${r.stderr})`);
    assert.equal(doc.ok, false, label);
    assert.equal(doc.error?.code, refused, `${label}: ${r.stdout}`);
    assert.equal(typeof doc.error.message, 'string', label);
    assert.match(r.stderr, new RegExp(`^baton: ${refused} `), `${label}: stderr names the code`);
  } else {
    assert.equal(doc.ok, true, `${label}: ${r.stdout.slice(0, 300)} ${r.stderr}`);
    assert.equal(r.code, 0, `${label}: exit 0 (${r.stderr})`);
    assert.equal('error' in doc, false, label);
  }
}

test('every command prints one JSON envelope under --json, on success and on refusal', (t) => {
  const w = agentWorld({ BATON_INSTANCE: 'tester' });
  t.after(() => fs.rmSync(w.root, { recursive: true, force: true }));
  const file = join(w.root, 'notes.txt');
  fs.writeFileSync(file, 'artifact body\n');
  const envelopeFile = join(w.root, 'v1.json');
  fs.writeFileSync(
    envelopeFile,
    JSON.stringify({ envelope_version: 1, session_id: 'migrated-1', task_id: '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f', text: 'Goal: migrate', written_at: '2026-01-01T00:00:00Z' }),
  );
  const publish = JSON.stringify({
    schema_version: 3,
    session_id: 'j1',
    expected_generation: 'ABSENT',
    expected_revision: 0,
    task_id: '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f',
    target_status: 'CLEAN',
    pointer_text: 'Goal: one envelope',
  });
  const P = w.project;
  // In order: each success leaves the store as the next one needs it.
  const cases: [string, Case[]][] = [
    ['session new', [{ args: ['session', 'new', 'Envelope one', '--id', 'j1', '--cwd', P] }, { args: ['session', 'new', 'Envelope two', '--id', 'j2', '--cwd', P] }, { args: ['session', 'new', 'T', '--id', '../x'], refused: 'WS003' }]],
    ['session list', [{ args: ['session', 'list', '--all'] }, { args: ['session', 'list', '--state', 'bogus'], refused: 'USAGE' }]],
    ['session show', [{ args: ['session', 'show', 'j1'] }, { args: ['session', 'show', 'nope'], refused: 'WS001' }]],
    ['session append', [{ args: ['session', 'append', 'j1', '--text', 'hello gyroscope'] }, { args: ['session', 'append', 'j1', '--stdin'], refused: 'USAGE' }]],
    ['session artifact add', [{ args: ['session', 'artifact', 'add', 'j1', file] }, { args: ['session', 'artifact', 'add', 'j1', join(w.root, 'missing')], refused: 'USAGE' }]],
    ['session artifact rm', [{ args: ['session', 'artifact', 'rm', 'j1', 'notes.txt'] }, { args: ['session', 'artifact', 'rm', 'nope', 'x'], refused: 'WS001' }]],
    ['session snapshot', [{ args: ['session', 'snapshot', 'j1'] }, { args: ['session', 'snapshot', 'nope'], refused: 'WS001' }]],
    ['session log', [{ args: ['session', 'log', 'j1'] }, { args: ['session', 'log', 'j1', '--tail', '-1'], refused: 'USAGE' }]],
    ['session renew', [{ args: ['session', 'renew', 'j1'] }, { args: ['session', 'renew', 'j1', '--lease', 'soon'], refused: 'USAGE' }]],
    ['session release', [{ args: ['session', 'release', 'j2'] }, { args: ['session', 'release', 'nope'], refused: 'WS001' }]],
    ['session resume', [{ args: ['session', 'resume', 'j1'] }, { args: ['session', 'resume', 'nope'], refused: 'WS001' }]],
    ['session verify', [{ args: ['session', 'verify', 'j1'] }, { args: ['session', 'verify'], refused: 'USAGE' }]],
    ['session repair', [{ args: ['session', 'repair', 'j1'] }, { args: ['session', 'repair', 'nope'], refused: 'WS001' }]],
    ['session redact', [{ args: ['session', 'redact', 'j1', '--pattern', 'nomatchhere'] }, { args: ['session', 'redact', 'j1', '--pattern', '('], refused: 'USAGE' }]],
    ['session prune', [{ args: ['session', 'prune', '--older-than', '3650d'] }, { args: ['session', 'prune', '--older-than', 'x'], refused: 'USAGE' }]],
    ['pointer publish', [{ args: ['pointer', 'publish'], input: publish }, { args: ['pointer', 'publish'], input: publish, refused: 'STALE_GENERATION' }]],
    ['pointer show', [{ args: ['pointer', 'show', 'j1'] }, { args: ['pointer', 'show', 'nope'], refused: 'WS001' }]],
    ['pointer report', [{ args: ['pointer', 'report', 'j1'] }, { args: ['pointer', 'report', 'j1', '--recall', '99'], refused: 'RECALL_NOT_FOUND' }]],
    ['pointer migrate', [{ args: ['pointer', 'migrate', envelopeFile] }, { args: ['pointer', 'migrate', join(w.root, 'missing')], refused: 'USAGE' }]],
    ['ref capture', [{ args: ['ref', 'capture', '--from', 'j2', '--into', 'j1'] }, { args: ['ref', 'capture', '--from', 'nope', '--into', 'j1'], refused: 'WS001' }]],
    ['ref list', [{ args: ['ref', 'list', 'j1'] }, { args: ['ref', 'list', 'nope'], refused: 'WS001' }]],
    ['ref render', [{ args: ['ref', 'render', 'j1'] }, { args: ['ref', 'render', 'j1', '--digest', 'ffffffff'], refused: 'REF_NOT_FOUND' }]],
    ['index rebuild', [{ args: ['index', 'rebuild'] }, { args: ['index', 'rebuild', '--bogus'], refused: 'USAGE' }]],
    ['search', [{ args: ['search', '--all', 'gyroscope'] }, { args: ['search', '--all', '***'], refused: 'USAGE' }]],
    ['files', [{ args: ['files', '--all', 'src/a.ts'] }, { args: ['files', '--all', ''], refused: 'USAGE' }]],
    ['project list', [{ args: ['project', 'list'] }, { args: ['project', 'list', '--bogus'], refused: 'USAGE' }]],
    ['project add', [{ args: ['project', 'add', P] }, { args: ['project', 'add', join(w.root, 'missing')], refused: 'USAGE' }]],
    ['project trust', [{ args: ['project', 'trust', P] }, { args: ['project', 'trust', join(w.root, 'missing')], refused: 'USAGE' }]],
    ['project untrust', [{ args: ['project', 'untrust', P] }, { args: ['project', 'untrust', join(w.root, 'missing')], refused: 'USAGE' }]],
    ['install', [{ args: ['install', 'claude'] }, { args: ['install', 'constructor'], refused: 'USAGE' }]],
    ['status', [{ args: ['status'] }, { args: ['status', '--bogus'], refused: 'USAGE' }]],
    ['verify', [{ args: ['verify', 'claude'] }, { args: ['verify', 'codex'], refused: 'VERIFY_FAILED' }]],
    ['uninstall', [{ args: ['uninstall', 'claude'] }, { args: ['uninstall', 'bogus'], refused: 'USAGE' }]],
    ['doctor', [{ args: ['doctor', '--bogus'], refused: 'USAGE' }]],
    ['episode open', [{ args: ['episode', 'open', 'j1'] }, { args: ['episode', 'open', 'j1'], refused: 'EP001' }]],
    ['episode close', [{ args: ['episode', 'close', 'j1'] }, { args: ['episode', 'close', 'j1'], refused: 'EP002' }]],
    ['session rename', [{ args: ['session', 'rename', 'j1', 'Renamed'] }, { args: ['session', 'rename', 'j1', ' '], refused: 'USAGE' }]],
    ['session delete', [{ args: ['session', 'delete', 'nope', '--yes'], refused: 'WS001' }, { args: ['session', 'delete', 'j2'], refused: 'USAGE' }]],
    ['session archive', [{ args: ['session', 'archive', 'j2'] }, { args: ['session', 'archive', 'j1'], refused: 'WS101' }]],
    ['demo', [{ args: ['demo'] }, { args: ['demo', '--bogus'], refused: 'USAGE' }]],
  ];
  const covered = new Set(cases.map(([name]) => name));
  const missing = leafCommands().filter((c) => !covered.has(c) && !NOT_ENVELOPED.has(c));
  assert.deepEqual(missing, [], 'every command has a --json case');
  for (const [name, list] of cases) {
    for (const c of list) {
      const r = baton(['--json', ...c.args], { env: w.env, cwd: P, input: c.input ?? '' });
      checkEnvelope(`${name} (${c.args.join(' ')})`, r, c.refused);
    }
  }
  // doctor reports problems with ok:false and its code, else ok:true: either way one envelope.
  const d = baton(['--json', 'doctor'], { env: w.env, cwd: P });
  checkEnvelope('doctor', d, d.code === 2 ? 'DOCTOR_PROBLEMS' : undefined);
  // --json after the command, and a usage error commander finds itself.
  checkEnvelope('--json last', baton(['session', 'show', 'j1', '--json'], { env: w.env, cwd: P }));
  checkEnvelope('missing argument', baton(['session', 'show', '--json'], { env: w.env, cwd: P }), 'USAGE');
});
