import { STATUS_CODES } from 'node:http';
import type { Exchange } from './exchange.js';
import type { Problem } from '../lib/errors.js';
import { API_HEADERS, CACHE_NONE, PROBLEM_TYPE } from './headers.js';

/**
 * RFC 9457 problem details, written here and nowhere else. `type` stays about:blank (the HTTP
 * status says it all), so `title` is the status phrase; `detail`, `code` and `errors` say what
 * exactly was wrong, `instance` what was asked and `requestId` where to look in the log.
 */
export function problemBody(problem: Problem, instance: string | null, requestId: string | null): string {
  // Built in place, not from spreads of optional parts: a 400 is what an abusive client costs.
  const body: Record<string, unknown> = { type: 'about:blank', title: STATUS_CODES[problem.status] ?? 'Error', status: problem.status, detail: problem.detail };
  if (instance !== null) body.instance = instance;
  body.code = problem.code;
  if (requestId) body.requestId = requestId;
  if (problem.errors) body.errors = problem.errors;
  return JSON.stringify(body);
}

export function sendProblem(ex: Exchange, problem: Problem): void {
  ex.send(problem.status, PROBLEM_TYPE, problemBody(problem, ex.url, ex.requestId), ['cache-control', CACHE_NONE, ...(problem.headers ?? [])]);
}

/**
 * A whole HTTP/1.1 response as bytes, for requests node:http could not parse (they never reach a
 * handler, so there is no response object): the same body and security headers as any other.
 */
export function rawProblemResponse(problem: Problem, requestId: string): string {
  const body = problemBody(problem, null, requestId);
  const headers = [
    ...API_HEADERS,
    'x-request-id',
    requestId,
    'cache-control',
    CACHE_NONE,
    'content-type',
    PROBLEM_TYPE,
    'content-length',
    String(Buffer.byteLength(body)),
    'connection',
    'close',
    ...(problem.headers ?? []),
  ];
  let head = `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${head}\r\n${body}`;
}
