import type { Problem } from '../lib/errors.js';

/** A node:http parse error as node's 'clientError' hands it over. */
export interface ParseError {
  code?: string;
  /** The packet being parsed when it failed. */
  rawPacket?: Buffer;
  /** How far into that packet the parser got. */
  bytesParsed?: number;
}

/** A method (an HTTP token) and the space after it: how a request line starts, never a header line (`name:`). */
const METHOD_AND_SPACE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ /;

const startsLikeRequestLine = (packet: Buffer, from: number) => METHOD_AND_SPACE.test(packet.toString('latin1', from, Math.min(from + 32, packet.length)));

/**
 * Whether a header overflow happened in the request line (the URL alone is over the limit: 414)
 * rather than in the header fields (431). node counts both against one limit and reports both as
 * HPE_HEADER_OVERFLOW, with the packet it was parsing and how far it got: the line that point is
 * in tells which. When that line began in an earlier packet, what follows the point does (a URL
 * ends before " HTTP/", a header value before CRLF); at a packet's end, a URL has no space.
 */
export function overflowInRequestLine(packet: Buffer | undefined, parsed: number | undefined): boolean {
  if (!packet || packet.length === 0) return false;
  const at = Math.min(Math.max(parsed ?? packet.length, 0), packet.length);
  const crlf = at < 2 ? -1 : packet.lastIndexOf('\r\n', at - 2);
  if (crlf !== -1) return startsLikeRequestLine(packet, crlf + 2);
  if (startsLikeRequestLine(packet, 0)) return true;
  if (packet.toString('latin1', at, at + 6) === ' HTTP/') return true;
  return at === packet.length && !packet.subarray(0, at).includes(0x20);
}

/** What a request node:http could not parse is answered with (problem+json, then the connection closes). */
export function unparsedProblem(err: ParseError): Problem {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return overflowInRequestLine(err.rawPacket, err.bytesParsed)
      ? { status: 414, code: 'URI_TOO_LONG', detail: 'The request line (its URL) is too long.' }
      : { status: 431, code: 'HEADERS_TOO_LARGE', detail: 'The request headers are too large.' };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: 'REQUEST_TIMEOUT', detail: 'The request was not received in time.' };
  return { status: 400, code: 'BAD_REQUEST', detail: 'The request could not be parsed as HTTP.' };
}
