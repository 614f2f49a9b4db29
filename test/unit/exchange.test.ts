import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPRESS_MIN_BYTES, Representations } from '../../src/http/compression.js';
import { Exchange } from '../../src/http/exchange.js';
import { PAGE_HEADERS } from '../../src/http/headers.js';
import { ask, closeServers, rawGet, serving, until } from './serving.js';

afterEach(closeServers);

/** The response's headers in the order they came, without node's own (date, connection, keep-alive). */
const headersOf = (r: Response) => [...r.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name));

describe('an exchange’s answers', () => {
  it('send: security headers, the request id, gathered headers, its own, the type and the byte length, then the body', async () => {
    const url = await serving((ex) => {
      ex.headers.push('ratelimit-limit', '10');
      ex.send(201, 'text/plain; charset=utf-8', 'café', ['cache-control', 'no-store']);
      // A second answer is dropped: the first has gone out.
      ex.send(500, 'text/plain', 'late');
    });
    const r = await ask(url);
    expect(r.status).toBe(201);
    expect(headersOf(r)).toEqual([
      ['cache-control', 'no-store'],
      ['content-length', '5'],
      ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
      ['content-type', 'text/plain; charset=utf-8'],
      ['ratelimit-limit', '10'],
      ['referrer-policy', 'no-referrer'],
      ['x-content-type-options', 'nosniff'],
      ['x-frame-options', 'DENY'],
      ['x-request-id', 'req-42'],
    ]);
    expect(await r.text()).toBe('café');
  });

  it('a large string body goes out whole beside its head', async () => {
    const big = 'z'.repeat(70 * 1024);
    const url = await serving((ex) => ex.send(200, 'text/plain', big));
    const r = await ask(url);
    expect(r.headers.get('content-length')).toBe(String(big.length));
    expect(await r.text()).toBe(big);
  });

  it('replaceHeaders swaps the gathered headers of those names, keeping the others', async () => {
    const url = await serving((ex) => {
      ex.headers.push('ratelimit-limit', '10', 'ratelimit-remaining', '9', 'vary', 'Origin');
      ex.replaceHeaders(['ratelimit-limit', '5', 'ratelimit-remaining', '0']);
      expect(ex.headers).toEqual(['vary', 'Origin', 'ratelimit-limit', '5', 'ratelimit-remaining', '0']);
      ex.sendEmpty(204);
    });
    const r = await ask(url);
    expect([r.status, r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining'), r.headers.get('vary')]).toEqual([204, '5', '0', 'Origin']);
  });

  it('sendCompressible: small bodies as they are; large ones compressed when the client takes it, with Vary either way', async () => {
    const large = JSON.stringify({ rows: Array.from({ length: 300 }, (_, i) => ({ zip: String(10000 + i) })) });
    expect(large.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    const url = await serving(async (ex, req) => {
      await ex.sendCompressible(200, 'application/json', req.url === '/small' ? '{"a":1}' : large, ['cache-control', 'no-store']);
    });
    const small = await ask(`${url}/small`, { headers: { 'accept-encoding': 'gzip' } });
    expect([small.headers.get('content-encoding'), small.headers.get('vary'), await small.text()]).toEqual([null, null, '{"a":1}']);
    const plain = await ask(`${url}/large`, { headers: { 'accept-encoding': 'identity' } });
    expect([plain.headers.get('content-encoding'), plain.headers.get('vary'), await plain.text()]).toEqual([null, 'accept-encoding', large]);
    // Read raw, so that fetch does not undo the coding.
    const raw = await rawGet(`${url}/large`, { 'accept-encoding': 'gzip' });
    expect([raw.headers['content-encoding'], raw.headers.vary, raw.headers['cache-control']]).toEqual(['gzip', 'accept-encoding', 'no-store']);
    expect(gunzipSync(raw.body).toString()).toBe(large);
  });

  it('sendRepresentation: its ETag, 304 when the client has it in any coding, else the coding it asks for with that coding’s tag', async () => {
    const text = 'x'.repeat(COMPRESS_MIN_BYTES * 2);
    const rep = new Representations(text);
    const small = new Representations('{"small":true}');
    const url = await serving(async (ex, req) => {
      await ex.sendRepresentation('application/json', req.url === '/small' ? small : rep, ['cache-control', 'max-age=60']);
    });
    const first = await ask(url, { headers: { 'accept-encoding': 'identity' } });
    expect([first.status, first.headers.get('etag'), first.headers.get('vary'), first.headers.get('cache-control')]).toEqual([
      200,
      rep.etag,
      'accept-encoding',
      'max-age=60',
    ]);
    expect(await first.text()).toBe(text);
    const gz = await rawGet(url, { 'accept-encoding': 'gzip' });
    expect([gz.headers.etag, gz.headers['content-encoding']]).toEqual([rep.etagOf('gzip'), 'gzip']);
    expect(gunzipSync(gz.body).toString()).toBe(text);
    const again = await rawGet(url, { 'accept-encoding': 'gzip', 'if-none-match': rep.etagOf('gzip') });
    expect([again.status, again.headers.etag, again.body.length]).toEqual([304, rep.etagOf('gzip'), 0]);
    // A small answer is never compressed and varies by nothing.
    const s = await rawGet(`${url}/small`, { 'accept-encoding': 'gzip' });
    expect([s.status, s.headers.etag, s.headers.vary, s.headers['content-encoding'], s.body.toString()]).toEqual([
      200,
      small.etag,
      undefined,
      undefined,
      '{"small":true}',
    ]);
    const s304 = await rawGet(`${url}/small`, { 'if-none-match': small.etag });
    expect([s304.status, s304.headers.vary]).toEqual([304, undefined]);
  });

  it('a page’s headers when it is built with them; applyHeaders sets the same ahead for a handler that writes itself', async () => {
    const url = await serving((ex, _req, res) => {
      ex.baseHeaders = PAGE_HEADERS;
      ex.headers.push('vary', 'Origin');
      ex.applyHeaders('no-cache');
      res.end('page');
      ex.endStarted();
    });
    const r = await ask(url);
    expect(r.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect([r.headers.get('x-request-id'), r.headers.get('cache-control'), r.headers.get('vary')]).toEqual(['req-42', 'no-cache', 'Origin']);
    expect(await r.text()).toBe('page');
  });

  it('its url, path and query as the client sent them; answered once the head is out', async () => {
    const seen: unknown[] = [];
    const url = await serving((ex) => {
      seen.push(ex.url, ex.path, ex.query, ex.answered);
      ex.send(200, 'text/plain', 'ok');
      seen.push(ex.answered);
    });
    await (await ask(`${url}/api/zip/05401?x=1`)).text();
    expect(seen).toEqual(['/api/zip/05401?x=1', '/api/zip/05401', 'x=1', false, true]);
  });

  it('its signal aborts when the deadline passes, or when the client goes away before the answer; not after a whole answer', async () => {
    const events: string[] = [];
    const url = await serving(async (ex, req) => {
      if (req.url === '/expire') {
        expect(ex.timedOut).toBe(false);
        ex.timeOut();
        events.push(`expired ${ex.timedOut} ${ex.signal.aborted}`);
        return ex.send(503, 'text/plain', 'late');
      }
      if (req.url === '/leave') {
        events.push('left: arrived');
        ex.signal.addEventListener('abort', () => events.push('left: aborted'));
        return;
      }
      const signal = ex.signal;
      ex.send(200, 'text/plain', 'done');
      ex.res.once('close', () => setImmediate(() => events.push(`done: aborted ${signal.aborted}`)));
    });
    await (await ask(`${url}/expire`)).text();
    const leaving = new AbortController();
    const request = fetch(`${url}/leave`, { signal: leaving.signal }).catch(() => null);
    await until(() => events.length >= 2);
    leaving.abort();
    await request;
    await until(() => events.length >= 3);
    await (await ask(`${url}/done`)).text();
    await until(() => events.length >= 4);
    expect(events).toEqual(['expired true true', 'left: arrived', 'left: aborted', 'done: aborted false']);
  });
});

describe('how an exchange writes', () => {
  it('a new exchange: no key, no scopes, not tracked by the deadlines, not incremental, its route "unmatched" (the metrics label)', () => {
    const socket = new Socket();
    const req = new IncomingMessage(socket);
    const ex = new Exchange(req, new ServerResponse(req), 'r', '/x', '');
    expect([ex.keyId, ex.scopes, ex.slot, ex.incremental, ex.route, ex.cost, ex.timedOut]).toEqual([null, '', -1, false, 'unmatched', 0, false]);
    // One controller: the signal handed out twice is the same one.
    expect(ex.signal).toBe(ex.signal);
    socket.destroy();
  });

  it('a string body from 64 Ki characters is ended at once, beside its head; a shorter one, or bytes, at the end of the turn', async () => {
    const ended: Record<string, boolean> = {};
    const bodies: Record<string, string | Buffer> = {
      '/at': 'a'.repeat(64 * 1024),
      '/under': 'u'.repeat(64 * 1024 - 1),
      '/bytes': Buffer.alloc(70 * 1024, 98),
      '/small': 'small',
    };
    const url = await serving((ex, req) => {
      ex.send(200, 'text/plain', bodies[req.url!]!);
      ended[req.url!] = ex.res.writableEnded;
    });
    for (const [path, body] of Object.entries(bodies)) {
      const r = await ask(url + path);
      expect([r.headers.get('content-length'), await r.text()]).toEqual([String(body.length), body.toString()]);
    }
    expect(ended).toEqual({ '/at': true, '/under': false, '/bytes': false, '/small': false });
  });

  it('endStarted ends what a handler wrote itself, and leaves an answer already on its way alone (its body is not cut off)', async () => {
    const url = await serving((ex, req, res) => {
      if (req.url === '/own') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('written by hand');
      } else if (req.url === '/sent') ex.send(200, 'text/plain', 'sent whole');
      else {
        ex.send(200, 'text/plain', 'first');
        // A second answer after the first: nothing, not a throw for headers already sent.
        expect(() => ex.sendEmpty(204)).not.toThrow();
      }
      ex.endStarted();
    });
    expect(await (await ask(`${url}/own`)).text()).toBe('written by hand');
    expect(await (await ask(`${url}/sent`)).text()).toBe('sent whole');
    const r = await ask(`${url}/twice`);
    expect([r.status, await r.text()]).toEqual([200, 'first']);
  });

  it('replaceHeaders takes names from the even places only: a value that is also a header name removes nothing', async () => {
    const url = await serving((ex) => {
      ex.headers.push('vary', 'Origin', 'x-a', '1');
      ex.replaceHeaders(['x-a', 'vary']);
      expect(ex.headers).toEqual(['vary', 'Origin', 'x-a', 'vary']);
      ex.sendEmpty(204);
    });
    expect((await ask(url)).headers.get('vary')).toBe('Origin');
  });

  it('sendCompressible and sendRepresentation without headers of their own; a body of exactly the compression threshold is compressed', async () => {
    const edge = 'e'.repeat(COMPRESS_MIN_BYTES);
    const rep = new Representations('{"r":1}');
    const url = await serving(async (ex, req) => {
      if (req.url === '/rep') await ex.sendRepresentation('application/json', rep);
      else await ex.sendCompressible(200, 'text/plain', req.url === '/edge' ? edge : 'tiny');
    });
    const tiny = await rawGet(`${url}/tiny`, {});
    expect([tiny.status, tiny.body.toString()]).toEqual([200, 'tiny']);
    const r = await rawGet(`${url}/rep`, {});
    expect([r.status, r.headers.etag, r.body.toString()]).toEqual([200, rep.etag, '{"r":1}']);
    const e = await rawGet(`${url}/edge`, { 'accept-encoding': 'gzip' });
    expect(e.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(e.body).toString()).toBe(edge);
  });

  it('a stream’s head: base and gathered headers, its own and the type, no length; Latin-1 header values kept byte for byte', async () => {
    const url = await serving((ex, _req, res) => {
      ex.headers.push('vary', 'Origin');
      ex.writeStreamHead('application/x-ndjson', ['x-note', 'caf\u00e9']);
      res.write('{"a":1}\n');
      res.end('{"a":2}\n');
    });
    const r = await rawGet(url, {});
    expect([
      r.status,
      r.headers['content-type'],
      r.headers['content-length'],
      r.headers.vary,
      r.headers['x-request-id'],
      r.headers['x-content-type-options'],
    ]).toEqual([200, 'application/x-ndjson', undefined, 'Origin', 'req-42', 'nosniff']);
    // Node reads a head as Latin-1: one byte 0xE9, not UTF-8's two.
    expect(r.headers['x-note']).toBe('caf\u00e9');
    expect(r.body.toString()).toBe('{"a":1}\n{"a":2}\n');
  });
});
