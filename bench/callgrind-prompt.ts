// Counts the instructions (valgrind's callgrind, Node with --hash-seed=1) of the prompt hook and
// of the contract floor on one session, as docs/adr/0018 describes: the session and a CLEAN
// pointer made as bench/cases/hook-prompt.ts makes them, the code caches warmed under the same
// flag (two runs each), the pointer republished CLEAN before every counted run, NODE_OPTIONS and
// NODE_EXTRA_CA_CERTS removed. Counts repeat to ±0.1 % whatever else the machine does, where the
// wall-clock bench moves by ±5 %; a tool for comparing builds, not a bench case.
//   npx tsx bench/callgrind-prompt.ts [hook,floor] [runs]      (needs valgrind)
// CG_TMP names the work folder (default /tmp/baton-callgrind); CG_REUSE=1 counts again on the
// session and caches a previous call left there (to count a changed dist/hook-boot.cjs alone).
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { FsStore } from '../src/store/store.ts';
import { buildContractFloor, makeClean } from './cases/hook-prompt.ts';
import { installedHookCommand, runShell } from './hook-command.ts';

const tmp = process.env.CG_TMP ?? '/tmp/baton-callgrind';
const root = process.cwd();
const which = (process.argv[2] ?? 'hook,floor').split(',');
const N = Number(process.argv[3] ?? 3);
const reuse = process.env.CG_REUSE === '1';
if (!reuse) {
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
}
const home = join(tmp, 'store');
const command = installedHookCommand(root, tmp, 'UserPromptSubmit').replace(/^(\S+) /, '$1 --hash-seed=1 ');
const env: Record<string, string | undefined> = { ...process.env, BATON_HOME: home, BATON_SESSION: undefined, BATON_VERIFY: undefined, NODE_OPTIONS: undefined, NODE_EXTRA_CA_CERTS: undefined };
const sid = reuse ? fs.readdirSync(join(tmp, 'store', 'sessions'))[0] : randomUUID();
const base = { session_id: sid, transcript_path: join(tmp, 't.jsonl'), cwd: tmp };
if (!reuse) runShell(command, env, { input: JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' }) });
const store = new FsStore(home);
let step = 0;
const republish = (): void => makeClean(store, sid, `Goal: measure the prompt hook\nNext: step ${++step}, keep it near node -e 0`);
const input = JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'Add retries with backoff to the upload client, then cover them with a test.' });
const bundle = join(tmp, 'prompt-floor.cjs');
await buildContractFloor(root, bundle);
const floor = `${process.execPath} --hash-seed=1 ${join(root, 'bench', 'floor', 'loader.cjs')} ${bundle} ${join(tmp, 'prompt-floor.v8cache')}`;
for (const w of which) {
  const cmd = w === 'hook' ? command : floor;
  // Warm its code cache under --hash-seed=1 (part of V8's flag hash), checking its answer.
  for (let i = 0; i < (reuse ? 0 : 2); i++) {
    republish();
    const r = runShell(cmd, env, { input, stdout: 'pipe' });
    if (!/TASK_POINTER_V2/.test(r.stdout)) throw new Error(`${w}: no context ${r.stderr}`);
  }
  const counts: number[] = [];
  for (let i = 0; i < N; i++) {
    republish();
    const out = join(tmp, `cg.${w}.${i}`);
    const r = spawnSync('/bin/sh', ['-c', `valgrind --tool=callgrind --trace-children=no --callgrind-out-file=${out} ${cmd}`], { input, env: env as NodeJS.ProcessEnv, encoding: 'utf8' });
    const m = /Collected : (\d+)/.exec(r.stderr);
    counts.push(m ? Number(m[1]) : NaN);
  }
  counts.sort((a, b) => a - b);
  console.log(w, counts.map((c) => (c / 1e6).toFixed(2)).join(' '), 'median', (counts[N >> 1] / 1e6).toFixed(2));
}
