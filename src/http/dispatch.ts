import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../lib/logger.js';
import type { GuardResult, KeyCheck } from '../auth/guard-answers.js';
import { BodyTooLargeError } from './body.js';
import type { Deadlines } from './deadline.js';
import { Exchange } from './exchange.js';
import { rawProblemResponse, sendProblem } from './problem.js';
import { timeoutMessage, type Problem } from '../lib/errors.js';
import { CACHE_NONE } from './headers.js';
import type { Metrics } from './metrics.js';
import { endRequestSpan, runIn, startRequestSpan, traced } from '../telemetry/trace.js';
import { hasScope } from '../auth/scopes.js';
import { presentedKey } from '../auth/presented-key.js';
import { allowsOrigin, corsHeaders, preflight, sameOrigin } from './security.js';
import { identityOf } from './identity.js';
import { markEstablished } from './connections.js';
import { WindowLimiter } from '../lib/window-limiter.js';

const REQUEST_ID = /^[\w.:-]{1,64}$/;
const INTERNAL: Problem = { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Unexpected error; it has been logged with this request id.' };

export interface Handlers {
  /** Pages served without a key (/, GraphiQL, /docs, /openapi.json), limited per client address. */
  pages: { pageOf(ex: Exchange): string | null; serve(ex: Exchange, page: string): Promise<void> };
  /** Liveness and readiness: no key, not counted, not limited. */
  ready(): { ready: boolean; waiting: string[] };
  graphql: { handle(ex: Exchange): Promise<void> | void };
  /** The Model Context Protocol for agents (Streamable HTTP). */
  mcp(ex: Exchange): Promise<void>;
  /** The REST route table; false when no route matches. */
  rest(ex: Exchange): Promise<boolean>;
  /** GraphQL over WebSocket: an upgrade the door let in, to shake hands with and speak the protocol on. */
  webSocket(req: IncomingMessage, socket: Duplex, head: Buffer, admitted: AdmittedUpgrade): Promise<void>;
}

/** An upgrade to /graphql as the door let it in: its request id, and its key's verdict when it sent one. */
export interface AdmittedUpgrade {
  requestId: string;
  /** The key in the upgrade's own headers and its verdict; null when it sent none (it may in connection_init). */
  key: { presented: string | undefined; verdict: GuardResult & { ok: true } } | null;
}

export interface DispatchDeps {
  /** The key check: in memory over SQLite (AuthGuard), or in Redis for replicas (ClusterGuard). */
  guard: KeyCheck;
  handlers: Handlers;
  deadlines: Deadlines;
  metrics: Metrics;
  corsOrigins: readonly string[];
  logger: Logger;
  /** The server's clock (ms), for the windows of requests without a key. */
  now: () => number;
}

/** Requests without a usable key one client address may send per window before its connections are closed. */
const KEYLESS_PER_ADDRESS = 1000;
const KEYLESS_WINDOW_SECONDS = 10;
const KEYLESS_FLOOD: Problem = {
  status: 429,
  code: 'RATE_LIMITED',
  detail: `More than ${KEYLESS_PER_ADDRESS} requests without a valid API key from this address in ${KEYLESS_WINDOW_SECONDS} s; the connection is closed. Send the key in the x-api-key header.`,
  headers: ['retry-after', String(KEYLESS_WINDOW_SECONDS), 'connection', 'close'],
};

const JSON_TYPE = 'application/json; charset=utf-8';

/** The client's request id when it sent a usable one, else a new one. */
function requestIdOf(req: IncomingMessage): string {
  const header = req.headers['x-request-id'];
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

/** A request's path and query; the hosted address carries /v1 before the documented paths, and both are served. */
function pathOf(rawUrl: string): { path: string; query: string } {
  const q = rawUrl.indexOf('?');
  let path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  if (path === '/v1' || path.startsWith('/v1/')) path = path.slice(3) || '/';
  return { path, query: q === -1 ? '' : rawUrl.slice(q + 1) };
}

/**
 * The one path every request takes: request id → CORS → key check and usage count → /graphql or
 * the REST route table → a problem+json answer for anything that went wrong. One log line per
 * request, when it is finished.
 */
export function createDispatcher({ guard, handlers, deadlines, metrics, corsOrigins, logger, now }: DispatchDeps) {
  const logRequests = logger.isLevelEnabled('info');
  const keyless = new WindowLimiter(KEYLESS_PER_ADDRESS, KEYLESS_WINDOW_SECONDS, now);

  async function route(ex: Exchange): Promise<void> {
    const { req } = ex;
    if (req.method === 'OPTIONS') return preflight(ex, corsOrigins);
    if (ex.path === '/livez' || ex.path === '/readyz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        ex.route = ex.path;
        return sendProblem(ex, {
          status: 405,
          code: 'METHOD_NOT_ALLOWED',
          detail: `${req.method} is not allowed here; use GET, HEAD`,
          headers: ['allow', 'GET, HEAD'],
        });
      }
      return ex.path === '/livez' ? probe(ex, { ready: true, waiting: [] }, 'live') : probe(ex, handlers.ready(), 'ready');
    }
    // The pages load without a key (GraphiQL, the docs); every request they send needs one.
    const page = handlers.pages.pageOf(ex);
    if (page) {
      ex.route = page;
      return handlers.pages.serve(ex, page);
    }
    const isGraphQL = ex.path === '/graphql';
    // An MCP message counts against the key's rate; the calls it carries against its quota (there).
    const counted = ex.path === '/mcp' ? 'rate' : 'request';

    const presented = presentedKey(req.headers);
    let verdict = ex.trace ? traced('key check', {}, () => guard.check(presented, counted)) : guard.check(presented, counted);
    if (verdict instanceof Promise) verdict = await verdict;
    if (!verdict.ok) {
      // Requests without a usable key are cheap to send by the thousand down one connection: past
      // a few from an address, the connection is closed with the answer.
      if (verdict.problem.status === 401 && keyless.exceeded(req.socket.remoteAddress ?? '')) return sendProblem(ex, KEYLESS_FLOOD);
      return sendProblem(ex, verdict.problem);
    }
    markEstablished(req.socket);
    ex.headers = ex.headers.length === 0 ? verdict.headers : ex.headers.concat(verdict.headers);
    const who = identityOf(verdict);
    ex.keyId = who.keyId;
    ex.keyRate = who.keyRate;
    ex.keyStreams = who.keyStreams;
    ex.scopes = who.scopes;

    if (isGraphQL) {
      ex.route = '/graphql';
      return handlers.graphql.handle(ex);
    }
    if (ex.path === '/mcp') {
      ex.route = '/mcp';
      return handlers.mcp(ex);
    }
    if (ex.path === '/metrics') {
      ex.route = '/metrics';
      if (!hasScope(ex.scopes, 'admin')) return sendProblem(ex, { status: 403, code: 'FORBIDDEN', detail: 'Metrics need a key with the admin scope.' });
      const { contentType, text } = await metrics.scrape();
      return ex.send(200, contentType, text, ['cache-control', CACHE_NONE]);
    }
    if (!(await handlers.rest(ex))) sendProblem(ex, { status: 404, code: 'NOT_FOUND', detail: `No such path: ${ex.path}` });
  }

  function probe(ex: Exchange, state: { ready: boolean; waiting: string[]; notes?: string[] }, name: 'live' | 'ready'): void {
    ex.route = `/${name}z`;
    const notes = state.notes?.length ? { notes: state.notes } : {};
    const body = state.ready ? { status: name, ...notes } : { status: 'starting', waiting: state.waiting, ...notes };
    ex.send(state.ready ? 200 : 503, JSON_TYPE, JSON.stringify(body), ['cache-control', CACHE_NONE]);
  }

  function fail(ex: Exchange, err: unknown): void {
    const problem: Problem =
      err instanceof BodyTooLargeError
        ? {
            status: 413,
            code: 'PAYLOAD_TOO_LARGE',
            detail: `The request body must be at most ${err.limit} bytes.`,
            errors: [{ name: 'body', bound: `<= ${err.limit} bytes`, message: `body must be at most ${err.limit} bytes` }],
          }
        : INTERNAL;
    if (problem === INTERNAL) logger.error({ reqId: ex.requestId, err }, 'request failed');
    else logger.warn({ reqId: ex.requestId, code: problem.code }, problem.detail);
    if (!ex.answered) sendProblem(ex, problem);
    else ex.endStarted();
  }

  /**
   * The same door for an upgrade: request id, the path, the origin, the key when the upgrade
   * carries one (its refusal, and the keyless flood's, as for any request), then the WebSocket
   * adapter, which only speaks the protocol. Refusals are problem+json before the handshake.
   */
  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const requestId = requestIdOf(req);
    const refuse = (problem: Problem) => void socket.end(rawProblemResponse(problem, requestId), () => socket.destroy());
    const { path } = pathOf(req.url ?? '/');
    if (path !== '/graphql') return refuse({ status: 404, code: 'NOT_FOUND', detail: `No WebSocket at ${path}: GraphQL over WebSocket is at /graphql.` });
    // A browser sends its page's origin: one CORS_ORIGINS allows, or this server's own (GraphiQL).
    const origin = req.headers.origin;
    if (origin !== undefined && !allowsOrigin(origin, corsOrigins) && !sameOrigin(origin, req.headers.host))
      return refuse({ status: 403, code: 'FORBIDDEN', detail: `The origin ${origin} may not open a WebSocket here (CORS_ORIGINS).` });
    const presented = presentedKey(req.headers);
    if (presented === undefined) return handlers.webSocket(req, socket, head, { requestId, key: null });
    const verdict = await guard.check(presented);
    if (socket.destroyed) return;
    if (!verdict.ok) {
      if (verdict.problem.status === 401 && keyless.exceeded((socket as Socket).remoteAddress ?? '')) return refuse(KEYLESS_FLOOD);
      return refuse(verdict.problem);
    }
    return handlers.webSocket(req, socket, head, { requestId, key: { presented: typeof presented === 'string' ? presented : undefined, verdict } });
  }

  function dispatch(req: IncomingMessage, res: ServerResponse): void {
    const requestId = requestIdOf(req);
    const { path, query } = pathOf(req.url ?? '/');
    const rawUrl = req.url ?? '/';
    const ex = new Exchange(req, res, requestId, path, query);
    if (req.headers.origin) ex.headers.push(...corsHeaders(req.headers.origin, corsOrigins));
    // Traced (OTEL_* set): the request's span continues the caller's trace, and every answer
    // carries its traceparent, so a client can find its request in the traces.
    // Probes are not traced: a load balancer asks every few seconds.
    ex.trace = path === '/livez' || path === '/readyz' ? null : startRequestSpan(req.method ?? 'GET', req.headers);
    if (ex.trace) ex.headers.push('traceparent', ex.trace.traceparent);

    const t0 = logRequests ? performance.now() : 0;
    if (logRequests) {
      res.once('finish', () => {
        logger.info(
          {
            reqId: requestId,
            method: req.method,
            url: rawUrl,
            status: res.statusCode,
            ms: +(performance.now() - t0).toFixed(2),
            keyId: ex.keyId ?? undefined,
            cost: ex.cost || undefined,
            traceId: ex.trace?.span.spanContext().traceId,
          },
          'request',
        );
      });
    }
    ex.onTimeOut = timeOut;
    deadlines.track(ex);
    const handled = ex.trace ? runIn(ex.trace.context, () => route(ex)) : route(ex);
    handled.then(
      () => finished(ex),
      (err) => {
        fail(ex, err);
        finished(ex);
      },
    );
  }

  return Object.assign(dispatch, { upgrade });

  function finished(ex: Exchange): void {
    deadlines.done(ex);
    if (ex.trace) {
      // A streamed answer (SSE, @defer) ends its span when its last part has gone.
      const end = () => endRequestSpan(ex.trace!, ex.req.method ?? '', ex.route, ex.res.statusCode);
      if (ex.res.writableEnded) end();
      else ex.res.once('close', end);
    }
    metrics.request(ex.route, ex.req.method ?? '', ex.res.statusCode, (performance.now() - ex.start) / 1000);
  }

  /**
   * Past the deadline without an answer, the request's work is aborted and the client gets 503
   * (a late answer is dropped). A subscription's stream that has started (SSE) is not cut; an
   * answer in parts (@defer, @stream) is.
   */
  function timeOut(ex: Exchange): void {
    if (ex.answered) {
      // An answer in parts has started: the parts still to come are cut (operation/incremental.ts).
      if (ex.incremental) ex.expire();
      return;
    }
    ex.expire();
    logger.warn({ reqId: ex.requestId, url: ex.url, ms: deadlines.ms }, 'request deadline passed');
    const detail = timeoutMessage(deadlines.ms);
    // GraphQL clients get a GraphQL error (code TIMEOUT); REST clients problem+json. Both 503.
    if (ex.path === '/graphql') {
      const body = JSON.stringify({ errors: [{ message: detail, extensions: { code: 'TIMEOUT' } }], extensions: { requestId: ex.requestId } });
      ex.send(503, 'application/json; charset=utf-8', body, ['cache-control', CACHE_NONE, 'retry-after', '1']);
    } else sendProblem(ex, { status: 503, code: 'TIMEOUT', detail, headers: ['retry-after', '1'] });
  }
}
