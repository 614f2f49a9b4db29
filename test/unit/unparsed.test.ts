import { describe, expect, it } from 'vitest';
import { overflowInRequestLine } from '../../src/http/unparsed.js';

/** A packet and the point node's parser reached in it (`|` marks it, and is not part of the packet). */
const at = (text: string): [Buffer, number] => [Buffer.from(text.replace('|', ''), 'latin1'), text.indexOf('|')];

describe('a header overflow: in the request line (414) or in the headers (431)', () => {
  const url = 'a'.repeat(8000);
  const value = 'b'.repeat(8000);

  it('tells them apart in the packets node hands over, however the request was cut into packets', () => {
    const cases: [string, string, boolean][] = [
      ['the whole request in one packet, stopped at the end of its URL', `GET /api/zips?codes=${url}| HTTP/1.1\r\nhost: x\r\n\r\n`, true],
      ['the first packet, stopped at its end', `GET /api/zips?codes=${url}|`, true],
      ['a later packet of the URL, stopped at its end', `${url}|`, true],
      ['a later packet where the URL ends', `${url}| HTTP/1.1\r\nhost: x\r\n\r\n`, true],
      ['a second request after the first in one packet', `GET / HTTP/1.1\r\nhost: x\r\n\r\nGET /?q=${url}| HTTP/1.1\r\n\r\n`, true],
      ['a long header value in the packet of the request line', `GET / HTTP/1.1\r\nhost: x\r\nx-big: ${value}|\r\n\r\n`, false],
      ['a header line begun in this packet', `${value}\r\nx-h22: ${value}|`, false],
      ['a later packet of a header value, where it ends', `${value}|\r\nx-next: 1\r\n\r\n`, false],
      ['a later packet of a header value with spaces, stopped at its end', `${'a=b; '.repeat(1000)}|`, false],
    ];
    for (const [what, text, inRequestLine] of cases) expect(overflowInRequestLine(...at(text)), what).toBe(inRequestLine);
  });

  it('without a packet, says headers (431, as before)', () => {
    expect(overflowInRequestLine(undefined, undefined)).toBe(false);
    expect(overflowInRequestLine(Buffer.alloc(0), 0)).toBe(false);
  });
});
