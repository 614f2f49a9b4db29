import type { GuardResult } from '../auth/guard-answers.js';

/** Whose request or socket it is, as the key check found: what the pipeline and the stream limits read. */
export interface Identity {
  /** Null with AUTH=off. */
  keyId: number | null;
  /** The key's per-second rate, which sizes its cost budget. */
  keyRate: number;
  /** The key's own cap on open streams, or null for the server's default. */
  keyStreams: number | null;
  /** Space-separated; everything with AUTH=off (local development). */
  scopes: string;
}

/** The identity an allowing verdict gives. */
export function identityOf(verdict: GuardResult & { ok: true }): Identity {
  const key = verdict.key;
  return key
    ? { keyId: key.id, keyRate: key.ratePerSecond, keyStreams: key.streams, scopes: key.scopes }
    : { keyId: null, keyRate: 0, keyStreams: null, scopes: 'admin' };
}
