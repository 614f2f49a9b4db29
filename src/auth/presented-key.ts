import type { IncomingHttpHeaders } from 'node:http';

/** The token of an `Authorization: Bearer …` header (how Prometheus sends credentials). */
export function bearer(header: unknown): string | undefined {
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
}

/** The key a request presents: its x-api-key header, or a bearer token. */
export function presentedKey(headers: IncomingHttpHeaders): string | string[] | undefined {
  return headers['x-api-key'] ?? bearer(headers.authorization);
}
