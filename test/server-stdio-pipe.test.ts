// `baton serve --stdio` whose client stops reading (closes its end of the server's stdout) in the
// middle of long replies: the server's next write fails with EPIPE, which must end the
// connection and the process quietly (exit 0), never an unhandled 'error' event and a stack.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { BIN, tmpDir } from './helpers.ts';
import { makeSession } from './index-helpers.ts';
import { envFor } from './server-helpers.ts';

test('a client that closes the read end of stdout mid-reply: the server exits 0 without a stack', async () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const id = makeSession(home, 'long', ws, { id: 'long', texts: Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(2000)}`) });
  const p = spawn(process.execPath, [BIN, 'serve', '--stdio'], { env: envFor(home), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  p.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const send = (o: unknown): void => {
    p.stdin.write(`${JSON.stringify(o)}\n`);
  };
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 't', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'initialized' });
  for (let i = 0; i < 8; i++) send({ jsonrpc: '2.0', id: 10 + i, method: 'event/replay', params: { threadId: id, after: 0 } });
  let read = 0;
  p.stdout.on('data', (d: Buffer) => {
    read += d.length;
    if (read > 4096) p.stdout.destroy();
  });
  const code = await new Promise<number | null>((res) => {
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      res(null);
    }, 30_000);
    p.on('exit', (c) => {
      clearTimeout(timer);
      res(c);
    });
  });
  assert.equal(code, 0, `exit ${code}; stderr: ${stderr}`);
  assert.doesNotMatch(stderr, /EPIPE|Unhandled|at /);
});
