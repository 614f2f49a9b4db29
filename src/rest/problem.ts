import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';

export interface Problem {
  status: number;
  detail: string;
  /** Machine-readable code, the same as GraphQL's extensions.code. */
  code: string;
  errors?: unknown[];
  headers?: Record<string, string>;
}

/**
 * RFC 9457 problem details. `type` stays about:blank (the HTTP status says it all), so `title` is
 * the status phrase; `detail`, `code` and `errors` say what exactly was wrong.
 */
export function sendProblem(res: ServerResponse, problem: Problem, instance: string, requestId: string): void {
  const body = {
    type: 'about:blank',
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.detail,
    instance,
    code: problem.code,
    requestId,
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
  res.writeHead(problem.status, { 'content-type': 'application/problem+json; charset=utf-8', ...problem.headers });
  res.end(JSON.stringify(body));
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
