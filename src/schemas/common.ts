// Shared primitives of baton's file formats (store.md, pointer.md): the one definition that
// the JSON Schemas in schemas/ and the TypeScript types both come from.
// Runtime code must only `import type` from src/schemas: zod is loaded by tests and scripts,
// never on the hook or CLI path.
import { z } from 'zod';

/** Session ids (store.md): `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`. */
export const SessionId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
  .meta({ id: 'session_id', description: 'A session id: ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' });

/** RFC 3339 UTC with milliseconds: the event log's `ts` and the lease times. */
export const IsoMillis = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  .meta({ id: 'iso_millis', description: 'RFC 3339 UTC timestamp with milliseconds, e.g. 2026-11-29T21:00:00.123Z' });

/** yyyy-MM-ddTHH:mm:ssZ: the pointer's `updated_at` and the journal's `recorded_at`. */
export const IsoSeconds = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  .meta({ id: 'iso_seconds', description: 'UTC timestamp to the second: yyyy-MM-ddTHH:mm:ssZ' });

/** A surface: `cli`, `hook:<provider>`, `mcp`, `api`, `web`, `ide-skill`. */
export const Surface = z
  .string()
  .regex(/^(cli|mcp|api|web|ide-skill|hook:[a-z][a-z0-9_-]{0,31})$/)
  .meta({ id: 'surface', description: 'cli, hook:<provider>, mcp, api, web or ide-skill' });

/** An allowed runtime: a kind of surface (`hook` allows every provider) or one surface. */
export const Runtime = z
  .string()
  .regex(/^(cli|hook|mcp|api|web|ide-skill|hook:[a-z][a-z0-9_-]{0,31})$/)
  .meta({ id: 'runtime', description: 'a kind of surface (cli, hook, mcp, api, web, ide-skill) or one surface (hook:<provider>)' });

export const Actor = z.enum(['user', 'agent', 'system']).meta({ id: 'actor' });

export const Sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({ id: 'sha256_hex', description: 'sha256, 64 lower-case hex digits' });

/** The workspace origin recorded by session.created (store.md). */
export const Workspace = z
  .strictObject({
    cwd: z.string().min(1),
    git_root: z.string().min(1).optional(),
    git_branch: z.string().min(1).optional(),
  })
  .meta({ id: 'workspace', description: 'the workspace origin: the real path, and the git root and branch when there is one' });

/** Who holds a lease (lock.json, lock.acquired). */
export const Holder = z
  .strictObject({
    surface: Surface,
    instance_id: z.string().min(1),
    actor: z.string().min(1),
  })
  .meta({ id: 'holder', description: 'the lease holder: surface, stable instance id, actor' });

export type Workspace = z.infer<typeof Workspace>;
export type Holder = z.infer<typeof Holder>;
