// Counts the instructions (valgrind's callgrind, Node with --hash-seed=1) of the turn-end hook
// capturing a 64 KiB delta — transcript.capture's input (bench/cases/transcript-capture.ts) —
// and of `node -e 0`, as bench/callgrind-prompt.ts does for the prompt (docs/adr/0018): the
// transcript's turns made by the bench's TurnWriter with seeded uuids (the same bytes on every
// call), three untimed Stops under the flag (the session made, the capture bundle's cache written
// from a steady capture as docs/adr/0074 says), then each counted run captures one more turn.
// The store is not copied or reset between runs: a copied log misses its `.verified` record
// (inode, ctime) and a copied transcript its cursor (inode), which are not a steady turn end.
// So run k of one build compares with run k of another; counts repeat to about ±0.5 %.
// A tool for comparing builds, not a bench case.
//   npx tsx bench/callgrind-capture.ts [hook,e0] [runs]      (needs valgrind)
// CG_TMP names the work folder (default /tmp/baton-callgrind-capture); CG_FLAGS adds Node flags
// to the counted hook runs (a V8 flag may make the code cache miss).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { TurnWriter } from './cases/transcript-capture.ts';
import { installedHookCommand, runShell } from './hook-command.ts';
import { prng } from './lib.ts';

const tmp = process.env.CG_TMP ?? '/tmp/baton-callgrind-capture';
const root = process.cwd();
const which = (process.argv[2] ?? 'hook,e0').split(',');
const N = Number(process.argv[3] ?? 3);
const AGENT_SESSION = '3c1f0d52-6a8e-4b7f-9d21-5e0a7c4b9f10';
const CWD = '/work/bench/capture-proj';

const work = join(tmp, 'work');
const store = join(work, 'store');
const agentHome = join(work, 'agent-home');
const dir = join(agentHome, '.claude', 'projects', CWD.replace(/[^A-Za-z0-9]/g, '-'));
const transcript = join(dir, `${AGENT_SESSION}.jsonl`);
const env: Record<string, string | undefined> = { ...process.env, HOME: agentHome, BATON_HOME: store, BATON_SESSION: undefined, BATON_VERIFY: undefined, CLAUDE_CONFIG_DIR: undefined, NODE_OPTIONS: undefined, NODE_EXTRA_CA_CERTS: undefined };
const payload = JSON.stringify({ session_id: AGENT_SESSION, transcript_path: transcript, cwd: CWD, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' });

// Seeded uuids: the transcript's bytes are the same on every call of this script.
const rng = prng(0x5eed);
const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(rng() * 16).toString(16)).join('');
const turns = new TurnWriter(() => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`);
fs.rmSync(tmp, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const command = installedHookCommand(root, tmp, 'Stop').replace(/^(\S+) /, `$1 --hash-seed=1 ${process.env.CG_FLAGS ?? ''} `);
for (let i = 0; i < 3; i++) {
  fs.appendFileSync(transcript, turns.turn(64 * 1024).text);
  const r = runShell(command, env, { input: payload, stdout: 'pipe' });
  if (r.stderr.trim()) throw new Error(`setup: the Stop hook said: ${r.stderr.trim().slice(0, 300)}`);
}
const log = join(store, 'sessions', AGENT_SESSION, 'events.jsonl');
const itemsIn = (): number => fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"type":"transcript.item"')).length;
const e0 = `${process.execPath} --hash-seed=1 -e 0`;
for (const w of which) {
  const cmd = w === 'hook' ? command : e0;
  const counts: number[] = [];
  for (let i = 0; i < N; i++) {
    const delta = turns.turn(64 * 1024);
    if (w === 'hook') fs.appendFileSync(transcript, delta.text);
    const before = w === 'hook' ? itemsIn() : 0;
    const out = join(tmp, `cg.${w}.${i}`);
    const r = spawnSync('/bin/sh', ['-c', `valgrind --tool=callgrind --trace-children=no --callgrind-out-file=${out} ${cmd}`], { input: payload, env: env as NodeJS.ProcessEnv, encoding: 'utf8' });
    const m = /Collected : (\d+)/.exec(r.stderr);
    counts.push(m ? Number(m[1]) : NaN);
    if (w === 'hook' && itemsIn() - before !== delta.items) throw new Error(`${w}: ${itemsIn() - before} items captured, ${delta.items} expected: ${r.stderr.slice(-500)}`);
  }
  const sorted = [...counts].sort((a, b) => a - b);
  console.log(w, counts.map((c) => (c / 1e6).toFixed(2)).join(' '), 'median', (sorted[N >> 1] / 1e6).toFixed(2));
}
