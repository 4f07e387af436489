// SHA-256 in one place, so the hook path can swap its implementation without touching callers.
import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
