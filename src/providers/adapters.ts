// Every adapter baton ships, in listing order (src/providers/index.ts makes the registry of it).
// A hook bundle built for one agent (dist/hook.<agent>.cjs) has this module replaced by one that
// lists that agent's adapter alone (scripts/build.mjs, docs/adr/0092): the other eight are code
// its every event would load and never run.
import { claude } from './claude.ts';
import { codex } from './codex.ts';
import { copilot } from './copilot.ts';
import { droid } from './droid.ts';
import { gemini } from './gemini.ts';
import { kilo, opencode } from './opencode.ts';
import { pi } from './pi.ts';
import { qwen } from './qwen.ts';
import type { ProviderAdapter } from './types.ts';

export const ADAPTERS: readonly ProviderAdapter[] = [claude, codex, gemini, qwen, copilot, droid, opencode, kilo, pi];
