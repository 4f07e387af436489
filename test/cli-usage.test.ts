// The usage rules of docs/cli.md, with the real binary: --help on every command exits 0,
// a word that names no command exits 2 at every level (with --help too), bare `baton` and a
// bare command group print help on stderr and exit 2, --json gets one JSON document.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, tmpDir } from './helpers.ts';

/** The subcommand names a help text lists under "Commands:". */
function commandsOf(help: string): string[] {
  const at = help.indexOf('\nCommands:\n');
  if (at < 0) return [];
  return help
    .slice(at + 11)
    .split('\n')
    .filter((l) => /^ {2}\S/.test(l))
    .map((l) => l.trim().split(/\s/)[0])
    .filter((n) => n !== 'help');
}

test('--help works on every command, groups and leaves, and writes nothing', () => {
  const root = tmpDir();
  const home = join(root, 'store');
  const seen: string[] = [];
  const visit = (path: string[]): void => {
    const r = baton([...path, '--help'], { home, env: { HOME: root } });
    assert.equal(r.code, 0, `baton ${path.join(' ')} --help: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: baton${path.length ? ` ${path.join(' ')}` : ''} `), `baton ${path.join(' ')} --help`);
    assert.equal(r.stderr, '');
    seen.push(path.join(' '));
    for (const c of commandsOf(r.stdout)) visit([...path, c]);
  };
  visit([]);
  for (const c of ['session', 'session artifact add', 'pointer publish', 'hook', 'install', 'verify', 'doctor', 'demo']) assert.ok(seen.includes(c), c);
  assert.ok(!fs.existsSync(home), 'no store was created');
  fs.rmSync(root, { recursive: true, force: true });
});

test('baton hook --help and baton hook claude --help print the hook command help (the hook never runs)', () => {
  const root = tmpDir();
  const home = join(root, 'store');
  for (const args of [['hook', '--help'], ['hook', 'claude', '--help'], ['hook', '-h']]) {
    const r = baton(args, { home, input: '{"hook_event_name":"SessionStart"}' });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, /^Usage: baton hook \[options\] <provider>/);
    assert.match(r.stdout, /claude \| codex \| gemini/);
  }
  assert.ok(!fs.existsSync(home));
  fs.rmSync(root, { recursive: true, force: true });
});

test('an unknown command exits 2 at every level, also with --help or after help', () => {
  const home = tmpDir();
  for (const args of [['serf'], ['serf', '--help'], ['help', 'serf'], ['--home', home, 'nosuch'], ['session', 'bogus'], ['session', 'bogus', '--help'], ['session', 'artifact', 'copy'], ['pointer', 'nope', '-h']]) {
    const r = baton(args, { home });
    assert.equal(r.code, 2, `baton ${args.join(' ')}`);
    const word = args.filter((a) => !a.startsWith('-') && a !== home && a !== 'help' && a !== 'session' && a !== 'pointer' && a !== 'artifact')[0];
    assert.match(r.stderr, new RegExp(`^baton: USAGE unknown command '${word}'`), `baton ${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
  }
  assert.match(baton(['searhc'], { home }).stderr, /did you mean search\?/);
  assert.deepEqual(fs.readdirSync(home), []);
  fs.rmSync(home, { recursive: true, force: true });
});

test('bare baton and a bare command group print their help on stderr and exit 2; baton help exits 0', () => {
  const bare = baton([]);
  assert.equal(bare.code, 2);
  assert.equal(bare.stdout, '');
  assert.match(bare.stderr, /^baton: USAGE baton needs a command \(baton --help lists them\)\n\nUsage: baton \[options\] \[command\]/);
  for (const words of [['session'], ['session', 'artifact'], ['team'], ['--home', '/nonexistent', 'session']]) {
    const group = baton(words);
    const path = ['baton', ...words.filter((w) => !w.startsWith('-') && !w.startsWith('/'))].join(' ');
    assert.equal(group.code, 2, words.join(' '));
    assert.equal(group.stdout, '');
    assert.ok(group.stderr.startsWith(`baton: USAGE ${path} needs a command (${path} --help lists them)\n\nUsage: ${path} `), group.stderr);
  }
  const help = baton(['help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: baton /);
  const helpSession = baton(['help', 'session']);
  assert.equal(helpSession.code, 0);
  assert.match(helpSession.stdout, /^Usage: baton session /);
});

test('with --json: --version, an unknown command and a missing command each print one JSON document', () => {
  const v = baton(['--version', '--json']);
  assert.equal(v.code, 0);
  assert.deepEqual(Object.keys(v.json), ['ok', 'version']);
  assert.match(v.json.version, /^\d+\.\d+\.\d+/);
  assert.equal(baton(['--json', '--version']).json?.version, v.json.version);
  assert.equal(baton(['--version']).stdout, `${v.json.version}\n`);
  for (const args of [['bogus', '--json'], ['--json', 'session', 'bogus'], ['serf', '--json', '--help']]) {
    const r = baton(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stdout.trim().split('\n').length, 1);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.error.code, 'USAGE');
    assert.match(r.json.error.message, /^unknown command '(bogus|serf)'/);
  }
  for (const args of [['--json'], ['session', '--json']]) {
    const r = baton(args);
    assert.equal(r.code, 2);
    assert.equal(r.json.error.code, 'USAGE');
    assert.match(r.json.error.message, /needs a command/);
  }
});

test('session artifact --help describes its verbs', () => {
  const r = baton(['session', 'artifact', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /add \[options\] <id> <file> +copy FILE into the session's artifacts\//);
  assert.match(r.stdout, /rm <id> <name> +remove an artifact/);
  assert.match(r.stdout, /need the lease/);
});
