/**
 * Header blocks every response carries, prepared once as flat [name, value, …] arrays so that a
 * response is one writeHead call rather than a dozen setHeader calls.
 */

const SECURITY = ['x-content-type-options', 'nosniff', 'x-frame-options', 'DENY', 'referrer-policy', 'no-referrer'] as const;

/** API answers: JSON, nothing to frame, run or load. */
export const API_HEADERS: readonly string[] = [...SECURITY, 'content-security-policy', "default-src 'none'; frame-ancestors 'none'"];

/**
 * Pages (GraphiQL, the docs, the index) run their own bundled scripts and styles, nothing from
 * elsewhere, and open in a browsing context of their own (the opener policy only means anything
 * for documents, so JSON answers do without it).
 */
export const PAGE_HEADERS: readonly string[] = [
  ...SECURITY,
  'cross-origin-opener-policy',
  'same-origin',
  'content-security-policy',
  "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'",
];

/** Errors, and answers that change from one request to the next. */
export const CACHE_NONE = 'no-store';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
