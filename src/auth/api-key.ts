import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new key: a recognisable prefix and 32 random bytes; only its hash is ever stored. */
export function generateApiKey(): string {
  return `szg_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
