import { hash, randomBytes } from 'node:crypto';

/** A new key: a recognisable prefix and 32 random bytes; only its hash is ever stored. */
export function generateApiKey(): string {
  return `szg_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
