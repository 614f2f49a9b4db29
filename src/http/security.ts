import type { Exchange } from './exchange.js';

const EXPOSED = 'x-request-id, etag, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, ratelimit-policy';

/** Whether CORS_ORIGINS lets a page of this origin use the API. */
export function allowsOrigin(origin: string, origins: readonly string[]): boolean {
  return origins.includes('*') || origins.includes(origin);
}

/**
 * CORS for browser clients. Keys travel in a header, never cookies, so credentials are not
 * allowed; the allowed origins come from CORS_ORIGINS. Headers for a request from `origin`.
 */
export function corsHeaders(origin: string, origins: readonly string[]): string[] {
  if (!allowsOrigin(origin, origins)) return [];
  const anyOrigin = origins.includes('*');
  return anyOrigin
    ? ['access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED]
    : ['access-control-allow-origin', origin, 'vary', 'Origin', 'access-control-expose-headers', EXPOSED];
}

/** Answers a CORS preflight: 204, with the methods and headers allowed when the origin is. */
export function preflight(ex: Exchange, origins: readonly string[]): void {
  const origin = ex.req.headers.origin;
  const allowed = origin && allowsOrigin(origin, origins);
  ex.sendEmpty(
    204,
    allowed
      ? [
          'access-control-allow-methods',
          'GET, POST, OPTIONS',
          'access-control-allow-headers',
          'x-api-key, content-type, accept, x-request-id, x-graphql-yoga-csrf, if-none-match',
          'access-control-max-age',
          '600',
        ]
      : [],
  );
}

/** Whether a browser's Origin is this server's own (a page it served, such as GraphiQL). */
export function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}
