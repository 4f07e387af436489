// The provider registry: every adapter baton ships, by name. Safe on the hook path.
// A Map, not an object: a name like `constructor` or `__proto__` is an unknown provider, never
// a member of Object.prototype. PROVIDERS (for listing) has no prototype for the same reason.
import { fail } from '../core/errors.ts';
import { ADAPTERS } from './adapters.ts';
import type { ProviderAdapter } from './types.ts';

const REGISTRY: ReadonlyMap<string, ProviderAdapter> = new Map(ADAPTERS.map((a) => [a.name, a]));

export const PROVIDER_NAMES = [...REGISTRY.keys()];
export const PROVIDERS: Readonly<Record<string, ProviderAdapter>> = Object.assign(Object.create(null), Object.fromEntries(REGISTRY));

/** The adapter of `name`, or undefined when baton has none by that name. */
export function findProvider(name: string): ProviderAdapter | undefined {
  return REGISTRY.get(name);
}

export function providerOf(name: string): ProviderAdapter {
  const p = findProvider(name);
  if (!p) fail('USAGE', `unknown provider ${JSON.stringify(name)}: baton knows ${PROVIDER_NAMES.join(', ')}`, { providers: PROVIDER_NAMES });
  return p;
}
