import type { IncomingMessage, ServerResponse } from 'node:http';

/** Headers every response carries; the GraphiQL page gets a CSP that lets its inline bundle run. */
export function setSecurityHeaders(res: ServerResponse, page: 'api' | 'graphiql'): void {
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cache-control', 'no-store');
  res.setHeader(
    'content-security-policy',
    page === 'api'
      ? "default-src 'none'; frame-ancestors 'none'"
      : "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'",
  );
}

/**
 * CORS for browser clients. Keys travel in a header, never cookies, so credentials are not
 * allowed; the allowed origins come from CORS_ORIGINS. Returns true when it answered a preflight.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, origins: readonly string[]): boolean {
  const origin = req.headers.origin;
  const anyOrigin = origins.includes('*');
  if (origin && (anyOrigin || origins.includes(origin))) {
    res.setHeader('access-control-allow-origin', anyOrigin ? '*' : origin);
    if (!anyOrigin) res.setHeader('vary', 'Origin');
    res.setHeader('access-control-expose-headers', 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, ratelimit-policy');
  }
  if (req.method !== 'OPTIONS') return false;
  if (origin && (anyOrigin || origins.includes(origin))) {
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    res.setHeader('access-control-allow-headers', 'x-api-key, content-type, accept, x-request-id, x-graphql-yoga-csrf');
    res.setHeader('access-control-max-age', '600');
  }
  res.writeHead(204);
  res.end();
  return true;
}
