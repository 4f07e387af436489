// The web page's file routes (docs/web.md, src/server/files.ts): GET /artifacts/<id>/,
// /artifacts/<id>/<name> and /contexts/<id>/<name> on the real `baton serve`, behind the
// token; names that are not plain file names, unknown sessions and missing files are 404
// and change nothing; the start context is served as frozen when its episode opened.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { type RunningServer, startServer } from './server-helpers.ts';

let home: string;
let proj: string;
let server: RunningServer;
let id: string;
let hooked: string;

/** A raw GET (no URL normalisation by a client library), with the token unless told not to. */
function get(path: string, auth = true): Promise<{ status: number; type: string; disposition: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, headers: auth ? { authorization: `Bearer ${server.token}` } : {} }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), disposition: String(res.headers['content-disposition'] ?? ''), body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  const root = tmpDir('baton-web-files-');
  home = join(root, 'home');
  proj = join(root, 'proj');
  fs.mkdirSync(proj);
  const run = (args: string[], input?: string) => {
    const r = baton(args, { home, cwd: proj, input });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return r.json;
  };
  id = run(['session', 'new', 'Files', '--json']).id;
  fs.writeFileSync(join(proj, 'plan v2.md'), '# the plan\n');
  fs.writeFileSync(join(proj, 'gone.txt'), 'removed later\n');
  run(['session', 'artifact', 'add', id, join(proj, 'plan v2.md'), '--json']);
  run(['session', 'artifact', 'add', id, join(proj, 'gone.txt'), '--json']);
  run(['session', 'artifact', 'rm', id, 'gone.txt', '--json']);
  hooked = randomUUID();
  const hook = (payload: Record<string, unknown>) => run(['hook', 'claude'], JSON.stringify({ cwd: proj, transcript_path: join(root, 't.jsonl'), session_id: hooked, ...payload }));
  hook({ hook_event_name: 'SessionStart', source: 'startup' });
  hook({ hook_event_name: 'SessionEnd', reason: 'clear' });
  server = await startServer(home);
});

after(async () => {
  await server?.stop();
});

test('the artifact list names the current artifacts with their digest and size', async () => {
  const r = await get(`/artifacts/${id}/`);
  assert.equal(r.status, 200);
  const { data } = JSON.parse(r.body.toString());
  assert.deepEqual(
    data.map((a: { name: string; bytes: number }) => [a.name, a.bytes]),
    [['plan v2.md', 11]],
  );
  assert.match(data[0].sha256, /^[0-9a-f]{64}$/);
});

test('an artifact downloads byte for byte as an attachment; a prefix of the id works', async () => {
  const r = await get(`/artifacts/${id.slice(0, 8)}/${encodeURIComponent('plan v2.md')}`);
  assert.equal(r.status, 200);
  assert.equal(r.body.toString(), '# the plan\n');
  assert.equal(r.type, 'application/octet-stream');
  assert.match(r.disposition, /^attachment; filename\*=UTF-8''plan%20v2\.md$/);
});

test('the start context is served as frozen when the episode opened (without the closure)', async () => {
  const dir = join(home, 'sessions', hooked, 'contexts');
  const [file] = fs.readdirSync(dir);
  const onDisk = fs.readFileSync(join(dir, file), 'utf8');
  assert.match(onDisk, /## Closed\n\n- time: /, 'the episode was closed: its file has the closure');
  const r = await get(`/contexts/${hooked}/${encodeURIComponent(file)}`);
  assert.equal(r.status, 200);
  assert.equal(r.type, 'text/plain; charset=utf-8');
  assert.equal(r.body.toString(), onDisk.slice(0, onDisk.lastIndexOf('## Closed\n\n- time: ')));
});

test('refused: traversal, separators, removed or unknown names, unknown sessions, no token — 404/401, nothing changes', async () => {
  const before = treeHash(home, (n) => n.startsWith('baton.db'));
  const cases: [string, number][] = [
    [`/artifacts/${id}/..%2Fevents.jsonl`, 404],
    [`/artifacts/${id}/%2e%2e`, 404],
    [`/artifacts/${id}/.hidden`, 404],
    [`/artifacts/${id}/gone.txt`, 404],
    [`/artifacts/${id}/missing.txt`, 404],
    [`/artifacts/${id}/a%5Cb`, 404],
    [`/artifacts/..%2F..%2Fserver.token/x`, 404],
    ['/artifacts/no-such-session/', 404],
    [`/contexts/${id}/..%2Fevents.jsonl`, 404],
    [`/contexts/${hooked}/%E0%A4%A`, 404],
    [`/artifacts/${id}/plan%20v2.md`, 401],
  ];
  for (const [path, status] of cases) {
    const r = await get(path, status !== 401);
    assert.equal(r.status, status, path);
    assert.doesNotMatch(r.body.toString(), /the plan|"seq"|[0-9a-f]{64}\n/, `${path} leaks nothing`);
  }
  assert.equal(treeHash(home, (n) => n.startsWith('baton.db')), before);
});
