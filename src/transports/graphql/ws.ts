import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { parse, GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { CloseCode, makeServer, type SubscribePayload } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { GuardResult } from '../../auth/guard-answers.js';
import { bearer, presentedKey } from '../../auth/presented-key.js';
import type { GraphQLContext, RequestInfo } from '../../graphql/context.js';
import { markUpgraded } from '../../http/connections.js';
import type { Deadlines, Tracked } from '../../http/deadline.js';
import { nestsDeeperThan } from '../../http/json-guard.js';
import { rawProblemResponse } from '../../http/problem.js';
import { allowsOrigin } from '../../http/security.js';
import type { StreamLimiter } from '../../http/streams.js';
import type { Logger } from '../../lib/logger.js';
import { TRANSPORTS, type Outcome } from '../../operation/operation.js';
import type { Pipeline } from '../../operation/pipeline.js';

export interface GraphQLWsDeps {
  pipeline: Pipeline;
  schema: GraphQLSchema;
  newContext: (request: RequestInfo) => GraphQLContext;
  guard: { check(presented: string | string[] | undefined): GuardResult | Promise<GuardResult> };
  streams: StreamLimiter;
  deadlines: Deadlines;
  logger: Logger;
  corsOrigins: readonly string[];
  /** Largest message read (MAX_BODY_BYTES). */
  maxMessageBytes: number;
  /** A socket that has not sent connection_init by then is closed (4408). */
  initTimeoutMs: number;
  /** A socket with no operation running and no message for this long is closed (1000). */
  idleTimeoutMs: number;
  /** A ping this often; a socket that has not answered the previous one is dropped. */
  heartbeatMs: number;
  /** The app's clock, for the init and idle time-outs. */
  now: () => Date;
  /** Makes a request id. */
  newId: () => string;
}

/** What the transport keeps of each socket (graphql-ws's `extra`). */
interface Connection {
  socket: WebSocket;
  request: IncomingMessage;
  id: string;
  openedAt: number;
  lastMessageAt: number;
  acknowledged: boolean;
  /** The key as it was presented (connectionParams or the upgrade request's header). */
  presented?: string | string[];
  keyId: number | null;
  keyRate: number;
  scopes: string;
  /** Each operation running, by its id. */
  operations: Map<string, Running>;
}

/** An operation running on a socket: what stops it, and its deadline while it has one. */
interface Running {
  abort: AbortController;
  deadline: Tracked;
}

/** Documents graphql-ws looks at to choose between its execute and subscribe: the outcome rides in the context. */
const AS_RESULT = parse('query Outcome { __typename }');
const AS_STREAM = parse('subscription Outcome { __typename }');
const carried = (args: ExecutionArgs) => {
  const { outcome } = args.contextValue as { outcome: Outcome & { kind: 'result' | 'stream' } };
  return outcome.kind === 'result' ? outcome.result : outcome.parts;
};

/**
 * GraphQL over WebSocket at /graphql (the graphql-transport-ws protocol, with the graphql-ws
 * library), as an adapter onto the operation pipeline:
 * - the key comes in connection_init's payload (`x-api-key`, or `authorization: Bearer …`) or the
 *   upgrade request's headers, and is checked before connection_ack: a missing, unknown or revoked
 *   key closes the socket with 4403; a key over its rate or quota with 1013 (try again later);
 * - the socket counts as one of its key's streams, with SSE and multipart (1013 over the cap);
 * - every subscribe message is one operation through the pipeline, and one request of its key
 *   (counted against rate and quota like an HTTP request); queries and mutations have the
 *   request deadline, subscriptions run until completed;
 * - a socket that has not sent connection_init within the init time-out is closed with 4408, one
 *   idle (no operation running, no message) past the idle time-out with 1000, one that does not
 *   answer pings is dropped; the Origin of the handshake must be one CORS_ORIGINS allows.
 */
export function createGraphQLWs(deps: GraphQLWsDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: deps.maxMessageBytes, perMessageDeflate: false });
  const connections = new Set<Connection>();
  const clock = () => deps.now().getTime();

  const server = makeServer<Record<string, unknown> | undefined, Connection>({
    schema: deps.schema,
    // The transport's own sweep closes late sockets (on the app's clock).
    connectionInitWaitTimeout: Infinity,
    execute: (args) => carried(args) as never,
    subscribe: (args) => carried(args) as never,
    onConnect: async (ctx) => {
      const conn = ctx.extra;
      const params = ctx.connectionParams ?? {};
      const fromParams = params['x-api-key'] ?? bearer(params.authorization ?? params.Authorization);
      conn.presented = typeof fromParams === 'string' ? fromParams : presentedKey(conn.request.headers);
      const verdict = await deps.guard.check(conn.presented);
      if (!verdict.ok) {
        const { status, detail } = verdict.problem;
        conn.socket.close(status === 401 || status === 403 ? CloseCode.Forbidden : TRY_AGAIN_LATER, closeReason(detail));
        return false;
      }
      conn.keyId = verdict.key?.id ?? null;
      conn.keyRate = verdict.key?.ratePerSecond ?? 0;
      conn.scopes = verdict.key ? verdict.key.scopes : 'admin';
      const refused = deps.streams.admit({
        keyId: conn.keyId,
        end: () => conn.socket.close(1001, 'Going away: the server needs the connection'),
        onEnd: (listener) => conn.socket.once('close', listener),
      });
      if (refused) {
        conn.socket.close(TRY_AGAIN_LATER, closeReason(refused.detail));
        return false;
      }
      conn.acknowledged = true;
      return true;
    },
    onSubscribe: async (ctx, id, payload) => {
      const conn = ctx.extra;
      // Each operation is a request of its key: the key may have been revoked, or be over its limits.
      const verdict = await deps.guard.check(conn.presented);
      if (!verdict.ok) {
        if (verdict.problem.status === 401) conn.socket.close(CloseCode.Forbidden, closeReason(verdict.problem.detail));
        return [new GraphQLError(verdict.problem.detail, { extensions: { code: verdict.problem.code } })];
      }
      const running = start(conn, id);
      const outcome = await run(conn, id, payload, running);
      if (outcome.kind === 'refused') {
        end(conn, id);
        return outcome.errors;
      }
      if (outcome.kind === 'kept') throw new Error('a WebSocket operation answered with a kept answer');
      return { schema: deps.schema, document: outcome.kind === 'stream' ? AS_STREAM : AS_RESULT, contextValue: { outcome } };
    },
    // Every operation that ends, by its own end, the client's complete, or the socket's close.
    onComplete: (ctx, id) => end(ctx.extra, id),
    onClose: (ctx) => {
      for (const id of [...ctx.extra.operations.keys()]) end(ctx.extra, id);
    },
  });

  function start(conn: Connection, id: string): Running {
    const abort = new AbortController();
    const running: Running = { abort, deadline: { due: 0, slot: -1, timeOut: () => abort.abort() } };
    deps.deadlines.track(running.deadline);
    conn.operations.set(id, running);
    return running;
  }

  function end(conn: Connection, id: string): void {
    const running = conn.operations.get(id);
    if (!running) return;
    conn.operations.delete(id);
    deps.deadlines.done(running.deadline);
    running.abort.abort();
  }

  /**
   * One operation through the pipeline. A query or mutation answers within the request deadline
   * (TIMEOUT after it); a deferred answer's parts still to come are cut at it; a subscription's
   * stream is not (it runs until completed).
   */
  async function run(conn: Connection, id: string, payload: SubscribePayload, running: Running): Promise<Outcome> {
    const { abort, deadline } = running;
    const info: RequestInfo = {
      requestId: `${conn.id}:${id.slice(0, 64)}`,
      signal: abort.signal,
      scopes: conn.scopes,
      keyId: conn.keyId,
      keyRate: conn.keyRate,
      due: deadline.due,
    };
    const ctx = deps.newContext(info);
    const extra = payload as SubscribePayload & { documentId?: unknown };
    const request = {
      query: payload.query === '' ? undefined : payload.query,
      documentId: extra.documentId,
      operationName: payload.operationName,
      variables: payload.variables,
      extensions: payload.extensions,
    };
    const timedOut = new Promise<Outcome>((resolve) =>
      abort.signal.addEventListener(
        'abort',
        () =>
          resolve({
            kind: 'refused',
            status: 503,
            errors: [new GraphQLError(`The operation took longer than the ${deps.deadlines.ms} ms execution limit.`, { extensions: { code: 'TIMEOUT' } })],
          }),
        { once: true },
      ),
    );
    const outcome = await Promise.race([deps.pipeline.run(request, TRANSPORTS.ws, ctx), timedOut]);
    if (outcome.kind === 'stream' && !outcome.incremental) deps.deadlines.done(deadline);
    return outcome;
  }

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const now = clock();
    const conn: Connection = {
      socket,
      request,
      id: deps.newId(),
      openedAt: now,
      lastMessageAt: now,
      acknowledged: false,
      keyId: null,
      keyRate: 0,
      scopes: '',
      operations: new Map(),
    };
    connections.add(conn);
    let alive = true;
    socket.on('pong', () => void (alive = true));
    const ping = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, deps.heartbeatMs).unref();
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => new Promise<void>((resolve) => (socket.readyState === socket.OPEN ? socket.send(data, () => resolve()) : resolve())),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (cb) =>
          socket.on('message', (data: Buffer) => {
            conn.lastMessageAt = clock();
            // Nested past the bound for JSON anywhere else: refused before anything parses it.
            if (nestsDeeperThan(data)) return socket.close(CloseCode.BadRequest, 'Invalid message received: JSON nested too deep');
            cb(String(data)).catch((err: unknown) => {
              deps.logger.error({ err, connection: conn.id }, 'a WebSocket message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      conn,
    );
    socket.once('close', (code: number, reason: Buffer) => {
      clearInterval(ping);
      connections.delete(conn);
      void closed(code, String(reason));
    });
    socket.on('error', (err) => deps.logger.debug({ err, connection: conn.id }, 'WebSocket error'));
  });

  // Late sockets, swept on the app's clock: not initialised in time, or idle.
  const sweep = setInterval(() => {
    const now = clock();
    for (const conn of connections) {
      if (!conn.acknowledged && now - conn.openedAt >= deps.initTimeoutMs)
        conn.socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
      else if (conn.acknowledged && conn.operations.size === 0 && now - conn.lastMessageAt >= deps.idleTimeoutMs) conn.socket.close(1000, 'Idle');
    }
  }, SWEEP_MS).unref();

  return {
    /** Takes an upgrade request for /graphql; anything else is refused before the handshake. */
    upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
      const path = (request.url ?? '').split('?', 1)[0];
      const refuse = (status: number, code: string, detail: string) =>
        socket.end(rawProblemResponse({ status, code, detail }, deps.newId()), () => socket.destroy());
      if (path !== '/graphql' && path !== '/v1/graphql') {
        refuse(404, 'NOT_FOUND', `No WebSocket at ${path}: GraphQL over WebSocket is at /graphql.`);
        return;
      }
      // A browser sends its page's origin: one CORS_ORIGINS allows, or this server's own (GraphiQL).
      const origin = request.headers.origin;
      if (origin !== undefined && !allowsOrigin(origin, deps.corsOrigins) && !sameOrigin(origin, request.headers.host)) {
        refuse(403, 'FORBIDDEN', `The origin ${origin} may not open a WebSocket here (CORS_ORIGINS).`);
        return;
      }
      markUpgraded(socket as never);
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    },
    /** Open sockets now. */
    get size(): number {
      return connections.size;
    },
    /** Closes every socket (1001) and stops the sweep. */
    close(): void {
      clearInterval(sweep);
      for (const conn of connections) conn.socket.close(1001, 'Going away: the server is stopping');
    },
  };
}

/** "Try again later": the key is over a limit, or the server holds its most streams. */
const TRY_AGAIN_LATER = 1013;
const SWEEP_MS = 250;

function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** A close frame's reason is at most 123 bytes. */
function closeReason(detail: string): string {
  const bytes = Buffer.from(detail);
  return bytes.length <= 123
    ? detail
    : `${bytes
        .subarray(0, 120)
        .toString()
        .replace(/\uFFFD$/, '')}...`;
}
