// Errors are values with a code from the spec, made here and turned into exit codes and
// messages in one place (the CLI). Nothing below the CLI prints or exits.

export type ErrorCode =
  | 'WS001' | 'WS002' | 'WS003' | 'WS004'
  | 'WS100' | 'WS101' | 'WS102' | 'WS103'
  | 'WS201' | 'WS202' | 'WS204'
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
