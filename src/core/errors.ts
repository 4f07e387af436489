// Errors are values with a code from the spec, made here and turned into exit codes and
// messages in one place (the CLI). Nothing below the CLI prints or exits.

export type ErrorCode =
  | 'WS001' | 'WS002' | 'WS003' | 'WS004'
  | 'WS010' | 'WS011' | 'WS012' | 'WS013'
  | 'WS100' | 'WS101' | 'WS102' | 'WS103'
  | 'WS201' | 'WS202' | 'WS204' | 'WS205' | 'WS206'
  | 'WS301' | 'WS302' | 'WS401' | 'WS402' | 'WS403'
  | 'EP001' | 'EP002'
  | 'USAGE'
  | (string & {});

export class BatonError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'BatonError';
    this.code = code;
    this.details = details;
  }
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.details };
  }
}

export function fail(code: ErrorCode, message: string, details: Record<string, unknown> = {}): never {
  throw new BatonError(code, message, details);
}

export function isBatonError(e: unknown): e is BatonError {
  return e instanceof BatonError;
}

/**
 * What the filesystem's refusals mean for the store (docs/store.md, "Codes baton adds"): the
 * one table turning an errno into a code with exit 2. Anything not listed stays INTERNAL.
 */
const ERRNO_CODES: Record<string, { code: ErrorCode; what: string }> = {
  ENOSPC: { code: 'WS206', what: 'the disk is full' },
  EDQUOT: { code: 'WS206', what: 'the disk quota is used up' },
  EFBIG: { code: 'WS206', what: 'the file size limit is reached' },
  EIO: { code: 'WS206', what: 'the disk reported an I/O error' },
  ELOOP: { code: 'WS010', what: 'a symbolic link stands where the store keeps a file or folder' },
  ENOTDIR: { code: 'WS012', what: 'a path inside the store is not a folder' },
  EROFS: { code: 'WS013', what: 'the store is on a read-only filesystem' },
  EACCES: { code: 'WS013', what: 'permission denied' },
  EPERM: { code: 'WS013', what: 'operation not permitted' },
};

/** A coded refusal for a filesystem error (see ERRNO_CODES), or null when the errno is not one the store expects. */
export function errnoError(e: unknown, doing?: string): BatonError | null {
  const err = e as NodeJS.ErrnoException;
  const known = err && typeof err.code === 'string' ? ERRNO_CODES[err.code] : undefined;
  if (!known) return null;
  const where = err.path ? ` (${err.path})` : '';
  return new BatonError(known.code, `${doing ? `${doing}: ` : ''}${known.what}${where} [${err.code}]`, { errno: err.code, ...(err.path ? { path: err.path } : {}) });
}
