// Where the store is: --home, else $BATON_HOME, else ${XDG_STATE_HOME:-$HOME/.local/state}/baton.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function resolveHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env.BATON_HOME) return resolve(env.BATON_HOME);
  const xdg = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(xdg, 'baton');
}
