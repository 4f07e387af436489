// The examples of README.md and docs/cli.md stay true (issue 29.12): every `baton ...` line of
// README's sh blocks and every inline `baton ...` of docs/cli.md names commands that exist
// and options those commands take (checked against the program's own tree, as
// `baton completion bash` prints it); the README lines that need no id, network or agent run
// in a temporary home, in order, and succeed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, baton, tmpDir } from './helpers.ts';

/** The command tree: path ('' for baton) → the words completion offers there. */
function tree(): Map<string, Set<string>> {
  const r = baton(['completion', 'bash']);
  assert.equal(r.code, 0, r.stderr);
  const out = new Map<string, Set<string>>();
  for (const m of r.stdout.matchAll(/^ {4}'([^']*)'\) echo '([^']*)' ;;$/gm)) out.set(m[1], new Set(m[2].split(' ')));
  assert.ok(out.size > 20);
  return out;
}

/** Shell words of one command (quotes kept together), up to a comment, pipe or redirection. */
function words(line: string): string[] {
  const cut = line.replace(/\s#.*$/, '').split(/\s(?:\||&&|;|<|>)\s?/)[0];
  return (cut.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''));
}

function shLines(md: string): string[] {
  const lines: string[] = [];
  for (const block of md.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1].split('\n')) {
      const l = raw.trim();
      if (l.startsWith('#')) continue;
      const i = l.indexOf('baton ');
      if (i === 0 || (i > 0 && /[|]\s*$/.test(l.slice(0, i)))) lines.push(l.slice(i));
    }
  }
  return lines;
}

function check(t: Map<string, Set<string>>, line: string): string {
  const w = words(line).slice(1);
  let path = '';
  let i = 0;
  for (; i < w.length; i++) {
    if (w[i].startsWith('-')) {
      // a global option before the command (and its value)
      if (!t.get('')?.has(w[i].split('=')[0])) break;
      if (w[i] === '--home') i++;
      continue;
    }
    const next = path ? `${path} ${w[i]}` : w[i];
    if (!t.has(next)) break;
    path = next;
  }
  assert.ok(path, `${line}: names no command`);
  const here = t.get(path)!;
  const subs = [...here].filter((x) => !x.startsWith('-'));
  assert.ok(subs.length === 0, `${line}: "baton ${path}" is a group: it needs one of ${subs.join(', ')}`);
  for (const x of w.slice(i)) if (/^--[a-z]/.test(x)) assert.ok(here.has(x.split('=')[0]), `${line}: baton ${path} has no option ${x}`);
  return path;
}

test('every baton line of README.md names a command and options that exist', () => {
  const t = tree();
  const lines = shLines(fs.readFileSync(join(ROOT, 'README.md'), 'utf8'));
  assert.ok(lines.length >= 30, `${lines.length} lines`);
  for (const l of lines) check(t, l);
});

test('every inline `baton ...` of docs/cli.md names a command and options that exist, except the ones it shows as unknown', () => {
  const t = tree();
  const md = fs.readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
  const spans = [...md.matchAll(/`(baton [^`]+)`/g)].map((m) => m[1].replace(/\s+/g, " ")).filter((s) => !/baton (serf|session bogus|help serf)\b/.test(s) && !/^baton (session|team)$|^baton session artifact$|^baton$/.test(s) && !s.includes('needs a command'));
  assert.ok(spans.length >= 10);
  for (const s of spans) {
    if (/^baton (--help|--version|help|COMMAND|hook PROVIDER)/.test(s) || s.startsWith('baton: ')) continue;
    check(t, s.replace(/\.\.\.$/, ''));
  }
});

test('the README lines that need no id, network or agent run in a temporary home, in order', () => {
  const home = tmpDir();
  const cwd = tmpDir();
  const runnable = /^baton (session new|session list|session verify --all|search|project list|index rebuild|status|pointer migrate v1\.json$)/;
  const lines = shLines(fs.readFileSync(join(ROOT, 'README.md'), 'utf8')).filter((l) => runnable.test(l) && !l.includes('<'));
  assert.ok(lines.length >= 6, lines.join('\n'));
  for (const l of lines) {
    const r = baton(words(l).slice(1), { home, cwd });
    assert.equal(r.code, 0, `${l}: ${r.stderr}`);
  }
});

test('the commands docs/cli.md gives as unknown are unknown to the program', () => {
  const md = fs.readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8').replace(/\s+/g, ' ');
  const sentence = /A word that names no command is `USAGE` and exit 2 at every level — (.*?) — also/.exec(md);
  assert.ok(sentence, 'the usage rule is there');
  const spans = [...sentence[1].matchAll(/`(baton [^`]+)`/g)].map((m) => m[1]);
  assert.ok(spans.length >= 3);
  for (const s of spans) {
    const r = baton(words(s).slice(1));
    assert.equal(r.code, 2, s);
    assert.match(r.stderr, /^baton: USAGE unknown command/, s);
  }
});
