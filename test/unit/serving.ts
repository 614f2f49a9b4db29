import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Exchange } from '../../src/http/exchange.js';
import { until as poll } from '../helpers/wait.js';

// Real node:http servers whose handlers get an Exchange, for the unit tests of what answers
// through one (test/unit/exchange, http-serving): requests that fail fast rather than wait.

export type Handler = (ex: Exchange, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A real node:http server on an ephemeral port whose handler gets an Exchange, as the dispatcher makes one. */
export async function serving(handler: Handler): Promise<string> {
  const server: Server = createServer((req, res) => {
    const [path, query = ''] = (req.url ?? '/').split('?');
    // A handler that throws (a file it reads is missing, a mutant) answers 500 with the cause, as
    // the server's dispatch answers it, rather than leaving the request to wait for the time-out.
    (async () => handler(new Exchange(req, res, 'req-42', path!, query), req, res))().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`the handler threw: ${err instanceof Error ? err.message : 'a value that is not an Error'}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const servers: Server[] = [];

/**
 * A request that fails rather than waits when no answer comes: a handler that never answers (a
 * mutant of the code under test) is a failed test at once, not a hung one until the runner's
 * time-out. Seconds, where a local answer takes milliseconds.
 */
export const ANSWER_MS = 3_000;
export const ask = (url: string, init: RequestInit = {}) => fetch(url, { signal: AbortSignal.timeout(ANSWER_MS), ...init });

/** Waits until `done`, failing (not hanging) when it never comes. */
export const until = (done: () => boolean): Promise<unknown> => poll(async () => done(), Boolean, ANSWER_MS, 0);

/** Closes the servers `serving` started (each test file's afterEach). */
export function closeServers(): void {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
}

/** A GET whose body is read as bytes, as sent (fetch would decompress it), from this address if given. */
export async function rawGet(
  url: string,
  headers: Record<string, string>,
  /** The client's own address (another loopback address is another client). */
  localAddress?: string,
): Promise<{ status: number; headers: Record<string, string | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, localAddress, signal: AbortSignal.timeout(ANSWER_MS) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
