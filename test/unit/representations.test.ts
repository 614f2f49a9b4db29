import { hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { codingFor, COMPRESS_MIN_BYTES, Representations } from '../../src/http/compression.js';
import { overflowInRequestLine, unparsedProblem } from '../../src/http/unparsed.js';

const asking = (acceptEncoding?: string) => ({ headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }) as IncomingMessage;

describe('the coding an answer goes out in', () => {
  it('none when the client names none', () => {
    expect(codingFor(asking(), 'answer')).toBeNull();
    expect(codingFor(asking(''), 'answer')).toBeNull();
    expect(codingFor(asking('identity'), 'answer')).toBeNull();
    expect(codingFor(asking('deflate, zstd'), 'answer')).toBeNull();
  });

  it('answers prefer gzip, assets brotli, when the client takes both alike', () => {
    expect(codingFor(asking('gzip, br'), 'answer')).toBe('gzip');
    expect(codingFor(asking('br, gzip'), 'answer')).toBe('gzip');
    expect(codingFor(asking('gzip, br'), 'asset')).toBe('br');
    expect(codingFor(asking('*'), 'answer')).toBe('gzip');
    expect(codingFor(asking('*'), 'asset')).toBe('br');
  });

  it("the client's q-values come first", () => {
    expect(codingFor(asking('gzip;q=0.5, br'), 'answer')).toBe('br');
    expect(codingFor(asking('br;q=0, gzip;q=0, *'), 'answer')).toBeNull();
    expect(codingFor(asking('br'), 'answer')).toBe('br');
    expect(codingFor(asking('gzip'), 'asset')).toBe('gzip');
  });
});

describe("an answer's representations", () => {
  const text = JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ zip: String(10000 + i), city: 'Burlington' })) });

  it('its ETag is the SHA-1 of its body, strong, and one per coding', () => {
    const rep = new Representations(text);
    const sha = hash('sha1', text, 'base64url');
    expect(rep.etag).toBe(`"${sha}"`);
    expect(rep.etagOf(null)).toBe(`"${sha}"`);
    expect(rep.etagOf('br')).toBe(`"${sha}.br"`);
    expect(rep.etagOf('gzip')).toBe(`"${sha}.gz"`);
  });

  it('If-None-Match names it in any coding, weak or strong, in a list, or as *', () => {
    const rep = new Representations(text);
    const sha = rep.etag.slice(1, -1);
    expect(rep.matches(undefined)).toBe(false);
    expect(rep.matches('')).toBe(false);
    expect(rep.matches(' * ')).toBe(true);
    expect(rep.matches(rep.etag)).toBe(true);
    expect(rep.matches(`W/"${sha}"`)).toBe(true);
    expect(rep.matches(`"${sha}.br"`)).toBe(true);
    expect(rep.matches(`"other", "${sha}.gz"`)).toBe(true);
    expect(rep.matches(`"${sha}.zz"`)).toBe(false);
    expect(rep.matches('"other", W/"another"')).toBe(false);
    expect(rep.matches(sha)).toBe(false);
  });

  it('is worth compressing from a size on; a kept large body is held as bytes, a small one or one sent once as its string', () => {
    const small = 'x'.repeat(COMPRESS_MIN_BYTES - 1);
    expect(new Representations(small).compressible).toBe(false);
    expect(new Representations(`${small}x`).compressible).toBe(true);
    expect(typeof new Representations(small).body).toBe('string');
    expect(Buffer.isBuffer(new Representations(`${small}x`).body)).toBe(true);
    expect(typeof new Representations(`${small}x`, false).body).toBe('string');
    expect(Buffer.isBuffer(new Representations(Buffer.from(small)).body)).toBe(true);
  });

  it('each coding is made once, kept, and counted; the bodies decode to the answer', async () => {
    const rep = new Representations(text);
    expect(rep.encodedBytes).toBe(0);
    const gz = await rep.in('gzip', 'answer');
    expect(gunzipSync(gz).toString()).toBe(text);
    expect(await rep.in('gzip', 'answer')).toBe(gz);
    expect(rep.encodedBytes).toBe(gz.length);
    const br = await rep.in('br', 'answer');
    expect(brotliDecompressSync(br).toString()).toBe(text);
    expect(rep.encodedBytes).toBe(gz.length + br.length);
  });
});

describe('what a request node:http could not parse is answered with', () => {
  const packet = (s: string) => Buffer.from(s, 'latin1');

  it('a header overflow in the request line is 414, in the fields 431', () => {
    const longUrl = packet(`GET /${'a'.repeat(100)}`);
    expect(unparsedProblem({ code: 'HPE_HEADER_OVERFLOW', rawPacket: longUrl, bytesParsed: longUrl.length })).toEqual({
      status: 414,
      code: 'URI_TOO_LONG',
      detail: 'The request line (its URL) is too long.',
    });
    const bigHeader = packet(`GET / HTTP/1.1\r\nx-big: ${'b'.repeat(100)}`);
    expect(unparsedProblem({ code: 'HPE_HEADER_OVERFLOW', rawPacket: bigHeader, bytesParsed: bigHeader.length })).toEqual({
      status: 431,
      code: 'HEADERS_TOO_LARGE',
      detail: 'The request headers are too large.',
    });
  });

  it('a request that did not arrive in time is 408; anything else 400', () => {
    expect(unparsedProblem({ code: 'ERR_HTTP_REQUEST_TIMEOUT' })).toEqual({
      status: 408,
      code: 'REQUEST_TIMEOUT',
      detail: 'The request was not received in time.',
    });
    expect(unparsedProblem({ code: 'HPE_INVALID_METHOD' })).toEqual({ status: 400, code: 'BAD_REQUEST', detail: 'The request could not be parsed as HTTP.' });
    expect(unparsedProblem({})).toEqual({ status: 400, code: 'BAD_REQUEST', detail: 'The request could not be parsed as HTTP.' });
  });

  it('tells the line a packet failed in, from the line it is in or, when that began in an earlier packet, from what follows', () => {
    // No packet: not the request line.
    expect(overflowInRequestLine(undefined, 0)).toBe(false);
    expect(overflowInRequestLine(Buffer.alloc(0), 0)).toBe(false);
    // The failing point after a CRLF: the line it is in starts like a header, or like a request line.
    const fields = packet('GET / HTTP/1.1\r\nhost: x\r\nx-long: yyyy');
    expect(overflowInRequestLine(fields, fields.length)).toBe(false);
    const second = packet('x-a: 1\r\nPOST /next HTTP/1.1');
    expect(overflowInRequestLine(second, second.length)).toBe(true);
    // Without a CRLF before it: a request line from the packet's start.
    expect(overflowInRequestLine(packet('GET /aaaa'), 9)).toBe(true);
    // A continuation: the URL ends before " HTTP/", a header value before a CRLF.
    const urlTail = packet('aaaa HTTP/1.1\r\nhost: x');
    expect(overflowInRequestLine(urlTail, 4)).toBe(true);
    const valueTail = packet('bbbb\r\nhost: x');
    expect(overflowInRequestLine(valueTail, 4)).toBe(false);
    // At a packet's end, a URL has no space; a header value may.
    expect(overflowInRequestLine(packet('aaaaaaaa'), 8)).toBe(true);
    expect(overflowInRequestLine(packet('b=b bbbb'), 8)).toBe(false);
    // Where it got is clamped to the packet; unknown is its end.
    expect(overflowInRequestLine(packet('aaaaaaaa'), 100)).toBe(true);
    expect(overflowInRequestLine(packet('aaaaaaaa'), undefined)).toBe(true);
    expect(overflowInRequestLine(packet('GET /a'), -5)).toBe(true);
    // One byte in: no line before it to look back to; two in, the CRLF that begins the packet is one.
    expect(overflowInRequestLine(packet('\r\nGET /'), 1)).toBe(false);
    expect(overflowInRequestLine(packet('\r\nGET /aaaa'), 2)).toBe(true);
    // A CRLF just past the point is not the line's start.
    expect(overflowInRequestLine(packet('GET /aa\r\nx-h: v'), 7)).toBe(true);
  });
});
