// The provider registry: every adapter baton ships, by name. Safe on the hook path.
import { fail } from '../core/errors.ts';
import { claude } from './claude.ts';
import { codex } from './codex.ts';
import { gemini } from './gemini.ts';
import type { ProviderAdapter } from './types.ts';

export const PROVIDERS: Record<string, ProviderAdapter> = { claude, codex, gemini };
export const PROVIDER_NAMES = Object.keys(PROVIDERS);

/** The adapter named exactly `name`, or undefined: an own key only, never the object prototype (`constructor`, `__proto__`). */
export function findProvider(name: string): ProviderAdapter | undefined {
  return Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name] : undefined;
}

export function providerOf(name: string): ProviderAdapter {
  const p = findProvider(name);
  if (!p) fail('USAGE', `unknown provider ${JSON.stringify(name)}: baton knows ${PROVIDER_NAMES.join(', ')}`, { providers: PROVIDER_NAMES });
  return p;
}
