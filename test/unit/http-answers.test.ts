import { describe, expect, it } from 'vitest';
import { identityOf } from '../../src/http/identity.js';
import { problemBody, rawProblemResponse } from '../../src/http/problem.js';
import { allowsOrigin, corsHeaders, sameOrigin } from '../../src/http/security.js';

const EXPOSED = 'x-request-id, etag, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, ratelimit-policy';

describe('problem details (RFC 9457), written in one place', () => {
  it('has type, title, status and detail, then what was asked, the code, the request id and the errors, in that order', () => {
    const body = problemBody(
      { status: 400, code: 'BAD_REQUEST', detail: 'limit must be at most 500', errors: [{ name: 'limit', value: 900, bound: '1 to 500' }] },
      '/api/resorts?limit=900',
      'req-1',
    );
    expect(body).toBe(
      '{"type":"about:blank","title":"Bad Request","status":400,"detail":"limit must be at most 500","instance":"/api/resorts?limit=900","code":"BAD_REQUEST","requestId":"req-1","errors":[{"name":"limit","value":900,"bound":"1 to 500"}]}',
    );
  });

  it('leaves out what it does not have; a status with no phrase is an "Error"', () => {
    expect(JSON.parse(problemBody({ status: 429, code: 'RATE_LIMITED', detail: 'slow down' }, null, null))).toEqual({
      type: 'about:blank',
      title: 'Too Many Requests',
      status: 429,
      detail: 'slow down',
      code: 'RATE_LIMITED',
    });
    expect(JSON.parse(problemBody({ status: 499, code: 'X', detail: 'd' }, null, '')).title).toBe('Error');
    expect(Object.keys(JSON.parse(problemBody({ status: 499, code: 'X', detail: 'd' }, null, '')))).not.toContain('requestId');
  });

  it('as a whole HTTP/1.1 response for a request node:http could not parse: security headers, its length, and the connection closed', () => {
    const raw = rawProblemResponse({ status: 431, code: 'HEADERS_TOO_LARGE', detail: 'too big', headers: ['retry-after', '1'] }, 'rid-9');
    const [head, body] = raw.split('\r\n\r\n');
    const body_ = problemBody({ status: 431, code: 'HEADERS_TOO_LARGE', detail: 'too big' }, null, 'rid-9');
    expect(body).toBe(body_);
    expect(head!.split('\r\n')).toEqual([
      'HTTP/1.1 431 Request Header Fields Too Large',
      'x-content-type-options: nosniff',
      'x-frame-options: DENY',
      'referrer-policy: no-referrer',
      "content-security-policy: default-src 'none'; frame-ancestors 'none'",
      'x-request-id: rid-9',
      'cache-control: no-store',
      'content-type: application/problem+json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body_)}`,
      'connection: close',
      'retry-after: 1',
    ]);
  });

  it('counts its length in bytes, not characters', () => {
    const raw = rawProblemResponse({ status: 400, code: 'BAD_REQUEST', detail: 'café ☃' }, 'r');
    const body = raw.split('\r\n\r\n')[1]!;
    expect(raw).toContain(`content-length: ${Buffer.byteLength(body)}\r\n`);
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length);
    // Without headers of its own, the connection's is the last.
    expect(raw.split('\r\n\r\n')[0]!.split('\r\n').at(-1)).toBe('connection: close');
  });
});

describe('whose request it is', () => {
  it("a key's id, rate, stream cap and scopes", () => {
    const verdict = { ok: true, key: { id: 7, ratePerSecond: 25, streams: 3, scopes: 'read sync' } } as unknown as Parameters<typeof identityOf>[0];
    expect(identityOf(verdict)).toEqual({ keyId: 7, keyRate: 25, keyStreams: 3, scopes: 'read sync' });
  });

  it('with AUTH=off: no key, no rate, the default stream cap, every scope', () => {
    const verdict = { ok: true, key: null } as unknown as Parameters<typeof identityOf>[0];
    expect(identityOf(verdict)).toEqual({ keyId: null, keyRate: 0, keyStreams: null, scopes: 'admin' });
  });
});

describe('CORS and origins', () => {
  it('an origin is allowed when CORS_ORIGINS names it or is *', () => {
    expect(allowsOrigin('https://a.example', ['https://a.example'])).toBe(true);
    expect(allowsOrigin('https://b.example', ['https://a.example'])).toBe(false);
    expect(allowsOrigin('https://b.example', ['https://a.example', '*'])).toBe(true);
    expect(allowsOrigin('https://b.example', [])).toBe(false);
  });

  it('a named origin is echoed with Vary: Origin; * is answered as *; others get no CORS headers', () => {
    expect(corsHeaders('https://a.example', ['https://a.example'])).toEqual([
      'access-control-allow-origin',
      'https://a.example',
      'vary',
      'Origin',
      'access-control-expose-headers',
      EXPOSED,
    ]);
    expect(corsHeaders('https://z.example', ['*'])).toEqual(['access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED]);
    expect(corsHeaders('https://z.example', ['https://a.example'])).toEqual([]);
  });

  it("the server's own origin is the one whose host is the request's Host; anything unparsable is not", () => {
    expect(sameOrigin('http://localhost:4000', 'localhost:4000')).toBe(true);
    expect(sameOrigin('http://localhost:4001', 'localhost:4000')).toBe(false);
    expect(sameOrigin('http://localhost:4000', undefined)).toBe(false);
    expect(sameOrigin('null', 'localhost:4000')).toBe(false);
  });
});
