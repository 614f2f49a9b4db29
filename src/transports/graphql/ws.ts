import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { parse, GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { CloseCode, handleProtocols, makeServer, type SubscribePayload } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { KeyCheck } from '../../auth/guard-answers.js';
import { bearer } from '../../auth/presented-key.js';
import type { GraphQLContext, RequestInfo } from '../../graphql/context.js';
import { markEstablished, markUpgraded } from '../../http/connections.js';
import type { Deadlines, Tracked } from '../../http/deadline.js';
import { ProviderCalls } from '../../lib/provider-calls.js';
import { identityOf, type Identity } from '../../http/identity.js';
import { nestsDeeperThan } from '../../http/json-guard.js';
import type { PendingLease, PendingSockets } from '../../http/pending-sockets.js';
import { rawProblemResponse } from '../../http/problem.js';
import type { AdmittedUpgrade } from '../../http/dispatch.js';
import { isRefusal, type StreamHolder, type StreamLease, type StreamLimiter } from '../../http/streams.js';
import { ClientError, timeoutMessage, type Problem } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { pullWhileTurnLasts } from '../../lib/turn.js';
import { TRANSPORTS, type Outcome } from '../../operation/operation.js';
import type { Pipeline } from '../../operation/pipeline.js';
import { UNEXPECTED_RESULT } from '../../operation/steps/finalize.js';
import { partJson } from './part-json.js';

export interface GraphQLWsDeps {
  pipeline: Pipeline;
  schema: GraphQLSchema;
  newContext: (request: RequestInfo) => GraphQLContext;
  guard: KeyCheck;
  streams: StreamLimiter;
  /** Sockets whose key is not known yet. */
  pending: PendingSockets;
  deadlines: Deadlines;
  logger: Logger;
  /** Largest message read (MAX_BODY_BYTES). */
  maxMessageBytes: number;
  /** A socket with more unsent bytes than this is closed (1008): its reader does not keep up. */
  maxBufferedBytes: number;
  /** A socket that has not sent connection_init by then is closed (4408). */
  initTimeoutMs: number;
  /** A socket with no operation running for this long is closed (1000). */
  idleTimeoutMs: number;
  /** A ping this often; a socket that has not answered the previous one is dropped. */
  heartbeatMs: number;
  /** The app's clock, for every time-out here. */
  now: () => Date;
  /** Makes a request id. */
  newId: () => string;
}

/** What the transport keeps of each socket (graphql-ws's `extra`). */
interface Connection {
  socket: WebSocket | null;
  request: IncomingMessage;
  address: string;
  id: string;
  openedAt: number;
  /** When an operation last started or ended: a socket is idle from then while nothing runs. */
  activeAt: number;
  acknowledged: boolean;
  /** The key as presented (the upgrade's header, or connection_init's payload). */
  presented?: string;
  /** Whose socket it is, once a key passed. */
  who: Identity | null;
  /** Its place in the pool of sockets without a key, until one passes. */
  pendingLease: PendingLease | null;
  /** What the stream limits end it through. */
  holder: StreamHolder | null;
  /** The socket's own place among its key's streams while nothing streams on it. */
  baseLease: StreamLease | null;
  /** Every place among its key's streams it holds (the base one and its operations'): all given back when it closes. */
  leases: Set<StreamLease>;
  /** Closed: nothing more is counted for it (a key check that ends after the close takes no place). */
  gone: boolean;
  /** Each operation running, by its id. */
  operations: Map<string, Running>;
  /** Messages read before connection_ack. */
  early: number;
  /** Bytes and messages it may still send now, as of `inboundAt` (the app's clock). */
  inbound: number;
  messagesLeft: number;
  inboundAt: number;
  /** A pong written and not yet flushed: the next ping gets none. */
  pongInFlight: boolean;
  alive: boolean;
  pingedAt: number;
  /** Writes wait for the end of the turn, to leave together. */
  corked: boolean;
  /** Set once it is being closed by us: when (on the app's clock), to cut it if the close does not get through. */
  endingSince: number | null;
}

/** An operation running on a socket: what stops it, its deadline while it has one, and its stream's place. */
interface Running {
  abort: AbortController;
  deadline: Tracked;
  lease: StreamLease | null;
}

/** Documents graphql-ws looks at to choose between its execute and subscribe: the outcome rides in the context. */
const AS_RESULT = parse('query Outcome { __typename }');
const AS_STREAM = parse('subscription Outcome { __typename }');
const carried = (args: ExecutionArgs) => {
  const { outcome } = args.contextValue as { outcome: { kind: 'result'; result: unknown } | { kind: 'delivered'; parts: unknown } };
  return outcome.kind === 'result' ? outcome.result : outcome.parts;
};

/** "Try again later": the key is over a limit, or the server holds its most streams. */
const TRY_AGAIN_LATER = 1013;
/** A reader that does not keep up, or a client that breaks the rules of a socket without a key. */
const POLICY_VIOLATION = 1008;
/** RFC 6455: a message whose data is not of its type (here, not UTF-8). */
const INVALID_PAYLOAD = 1007;
const SWEEP_MS = 250;
/** Why an operation's signal aborts when it ends (it answered, or the client completed it). */
const ENDED = Symbol('operation ended');
/** Messages a socket may send before connection_ack (connection_init and a few pings), and how large each. */
const MAX_EARLY_MESSAGES = 8;
const MAX_EARLY_MESSAGE_BYTES = 4096;
/** A ping's payload is echoed in its pong only up to this size (the pong says nothing more). */
const MAX_PONG_BYTES = 1024;
/** How long a socket we closed may take to finish the close before it is cut (ms of the app's clock). */
const CLOSE_GRACE_MS = 1000;
const PONG = '{"type":"pong"}';
/**
 * What a socket may send: every message is read and parsed, pings too, so their bytes are budgeted
 * (a bucket refilled on the app's clock): a burst of this many, then this many a second.
 */
const INBOUND_BURST_BYTES = 1024 * 1024;
const INBOUND_BYTES_PER_SECOND = 256 * 1024;
/** And messages: a burst of this many (a page starting its subscriptions at once), then this many a second. */
const MESSAGE_BURST = 256;
const MESSAGES_PER_SECOND = 64;
/** What a protocol ping frame costs besides its payload. */
const FRAME_HEADER_BYTES = 16;
/** Unsent bytes below which a stream's next part is pulled without waiting for the last to go out. */
const PULL_AHEAD_BYTES = 64 * 1024;

/**
 * GraphQL over WebSocket at /graphql (the graphql-transport-ws protocol, with the graphql-ws
 * library), as an adapter onto the operation pipeline. graphql-ws' `makeServer` speaks the
 * protocol; its `useServer` wiring for ws is not used, because this one adds what it leaves out:
 * pings answered only to a socket that reads (no pong queued behind unread bytes), bytes in and
 * out bounded per socket, the keyless pool, idle eviction at the connection cap, and the request
 * deadline per operation.
 * - a key in the upgrade request's headers is checked at the door before the handshake (401, 429
 *   as on every path); a socket without one joins a small pool per client address and in all, and must send
 *   its key in connection_init's payload (`x-api-key`, or `authorization: Bearer …`) within the
 *   init time-out (4408); past the pool's bounds the upgrade is refused (429, 503);
 * - a missing, unknown or revoked key closes the socket with 4403 before connection_ack; a key
 *   over its rate or quota with 1013 (try again later);
 * - each subscription and each @defer / @stream operation is one of its key's streams, with SSE
 *   and multipart (and a socket running none counts as one): one over the key's bounds gets an
 *   `error` for its own id, the socket stays;
 * - every subscribe message is one operation through the pipeline, and one request of its key
 *   (counted against rate and quota like an HTTP request); queries and mutations have the
 *   request deadline, subscriptions run until completed;
 * - a stream's parts are written here, each text made once for every subscriber of the same
 *   update (part-json.ts), the next pulled once the last has gone out;
 * - a socket idle (nothing running) past the idle time-out is closed with 1000, one that does not
 *   answer pings is dropped, one whose unsent bytes pass STREAM_MAX_BUFFERED_BYTES is closed with
 *   1008; pongs are never queued behind an unread one and echo small payloads only.
 * The handshake's path, Origin and key are checked at the same door as every request
 * (http/dispatch.ts) before it reaches this adapter.
 */
export function createGraphQLWs(deps: GraphQLWsDeps) {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: deps.maxMessageBytes,
    perMessageDeflate: false,
    // Offered several subprotocols (graphql-ws' own client offers one; others list both), pick ours.
    handleProtocols,
    // Protocol-level pings are answered here, where an unread socket gets no pong.
    autoPong: false,
  });
  const connections = new Set<Connection>();
  const clock = () => deps.now().getTime();
  // A handshake the WebSocket library refuses (a wrong method, a missing Sec-WebSocket-Key or
  // version) is answered as every refusal is: problem+json with the security headers.
  wss.on('wsClientError', (err: Error, socket: Duplex) => refuse(socket, handshakeProblem(err.message)));

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
      const presented = typeof fromParams === 'string' ? fromParams : conn.presented;
      // A key the upgrade carried passed already; one in the payload (or none at all) is checked now.
      if (!conn.who || presented !== conn.presented) {
        const verdict = await deps.guard.check(presented);
        if (!verdict.ok) {
          closeFor(conn, verdict.problem);
          return false;
        }
        conn.presented = presented;
        const refused = identify(conn, identityOf(verdict));
        if (refused) {
          closeFor(conn, refused);
          return false;
        }
      }
      conn.acknowledged = true;
      conn.activeAt = clock();
      return true;
    },
    onSubscribe: async (ctx, id, payload) => {
      const conn = ctx.extra;
      conn.activeAt = clock();
      // Known from the message on (before anything is awaited), so its id is not taken twice.
      const running = start(conn, id);
      // Each operation is a request of its key: the key may have been revoked, or be over its limits.
      const verdict = await deps.guard.check(conn.presented);
      if (!verdict.ok) {
        end(conn, id);
        if (verdict.problem.status === 401) closeFor(conn, verdict.problem);
        return [errorOf(verdict.problem)];
      }
      const outcome = await run(conn, id, payload, running);
      if (outcome.kind === 'refused') {
        end(conn, id);
        return outcome.errors;
      }
      if (outcome.kind === 'kept') throw new Error('a WebSocket operation answered with a kept answer');
      if (outcome.kind === 'result') return { schema: deps.schema, document: AS_RESULT, contextValue: { outcome } };
      // Completed or closed while it was being run: nothing to count or deliver.
      if (conn.operations.get(id) !== running) {
        void outcome.parts[Symbol.asyncIterator]().return?.();
        return { schema: deps.schema, document: AS_STREAM, contextValue: { outcome: { kind: 'delivered', parts: NOTHING } } };
      }
      // A stream: one of its key's streams, or refused for its own id with the bound it passed.
      const lease = leaseFor(conn);
      if (isRefusal(lease)) {
        void outcome.parts[Symbol.asyncIterator]().return?.();
        end(conn, id);
        return [errorOf(lease)];
      }
      running.lease = lease;
      const parts = deliver(conn, id, outcome.parts);
      return { schema: deps.schema, document: AS_STREAM, contextValue: { outcome: { kind: 'delivered', parts } } };
    },
    // Every operation that ends, by its own end, the client's complete, or the socket's close.
    onComplete: (ctx, id) => end(ctx.extra, id),
    onClose: (ctx) => {
      for (const id of [...ctx.extra.operations.keys()]) end(ctx.extra, id);
    },
  });

  /** A key passed: the socket leaves the pool and counts as one of its key's streams. */
  function identify(conn: Connection, who: Identity): Problem | null {
    conn.baseLease?.release();
    conn.baseLease = null;
    conn.who = who;
    conn.holder = { keyId: who.keyId, address: conn.address, keyLimit: who.keyStreams, end: (reason) => finish(conn, reason) };
    const admitted = take(conn);
    if (isRefusal(admitted)) return admitted;
    conn.baseLease = admitted;
    conn.pendingLease?.release();
    conn.pendingLease = null;
    markEstablished(conn.request.socket);
    return null;
  }

  /** A stream's place: the socket's own while nothing else streams on it, else a new one of its key. */
  function leaseFor(conn: Connection): StreamLease | Problem {
    const base = conn.baseLease;
    if (base) {
      conn.baseLease = null;
      return base;
    }
    return take(conn);
  }

  /** A new place among the key's streams, held by the socket until it is given back or the socket closes. */
  function take(conn: Connection): StreamLease | Problem {
    if (conn.gone) return SOCKET_GONE;
    const admitted = deps.streams.admit(conn.holder!);
    if (isRefusal(admitted)) return admitted;
    const lease: StreamLease = {
      release: () => {
        conn.leases.delete(lease);
        admitted.release();
      },
    };
    conn.leases.add(lease);
    return lease;
  }

  function start(conn: Connection, id: string): Running {
    const abort = new AbortController();
    const running: Running = { abort, deadline: { due: 0, slot: -1, providers: new ProviderCalls(), timeOut: () => abort.abort() }, lease: null };
    deps.deadlines.track(running.deadline);
    conn.operations.set(id, running);
    return running;
  }

  function end(conn: Connection, id: string): void {
    const running = conn.operations.get(id);
    if (!running) return;
    conn.operations.delete(id);
    conn.activeAt = clock();
    deps.deadlines.done(running.deadline);
    // A reason of its own: abort() with none makes a DOMException, stack and all, for every operation that ends.
    running.abort.abort(ENDED);
    const lease = running.lease;
    if (!lease) return;
    // The last stream on an open socket leaves its place to the socket; any other is given back.
    const streaming = [...conn.operations.values()].some((r) => r.lease);
    if (!streaming && !conn.baseLease && conn.endingSince === null && conn.socket?.readyState === 1) conn.baseLease = lease;
    else lease.release();
  }

  /**
   * One operation through the pipeline. A query or mutation answers within the request deadline
   * (TIMEOUT after it); a deferred answer's parts still to come are cut at it; a subscription's
   * stream is not (it runs until completed).
   */
  async function run(conn: Connection, id: string, payload: SubscribePayload, running: Running): Promise<Outcome> {
    const { abort, deadline } = running;
    const who = conn.who!;
    const info: RequestInfo = {
      requestId: `${conn.id}:${id.slice(0, 64)}`,
      signal: abort.signal,
      scopes: who.scopes,
      keyId: who.keyId,
      keyRate: who.keyRate,
      due: deadline.due,
      providers: deadline.providers,
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
    let answered = false;
    const timedOut = new Promise<Outcome>((resolve) =>
      abort.signal.addEventListener(
        'abort',
        () => {
          // Every operation's end aborts it too: the error (and its stack) is made only for one still running.
          if (answered) return;
          resolve({
            kind: 'refused',
            status: 503,
            errors: [new GraphQLError(timeoutMessage(deps.deadlines.ms), { extensions: { code: 'TIMEOUT' } })],
          });
        },
        { once: true },
      ),
    );
    const outcome = await Promise.race([deps.pipeline.run(request, TRANSPORTS.ws, ctx), timedOut]);
    answered = true;
    if (outcome.kind === 'stream' && !outcome.incremental) deps.deadlines.done(deadline);
    return outcome;
  }

  /**
   * Writes a stream's parts as `next` messages of its id, each part's text made once for all who
   * share it, the next part pulled once the last has gone out to the socket. graphql-ws gets an
   * iterable that yields nothing and ends when the stream does (then it sends `complete`), and
   * stops the stream through its `return` (the client's complete, the socket's close).
   */
  function deliver(conn: Connection, id: string, parts: AsyncIterable<unknown>): AsyncIterableIterator<never> {
    const iterator = parts[Symbol.asyncIterator]();
    const prefix = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
    const done: IteratorResult<never> = { done: true, value: undefined };
    let finish!: () => void;
    const finished = new Promise<IteratorResult<never>>((resolve) => (finish = () => resolve(done)));
    const pump = (): void => {
      iterator.next().then(
        (r) => {
          if (r.done || !conn.operations.has(id)) return finish();
          // The next part is pulled at once while little waits to be sent, else once this one is out.
          const later = conn.socket!.bufferedAmount >= PULL_AHEAD_BYTES;
          if (write(conn, `${prefix}${partJson(r.value as object)}}`, later ? (err) => !err && pullWhileTurnLasts(pump) : undefined) && !later)
            pullWhileTurnLasts(pump);
        },
        (err: unknown) => {
          deps.logger.error({ err, connection: conn.id }, 'a stream failed');
          write(conn, `${prefix}${JSON.stringify(UNEXPECTED_RESULT)}}`);
          finish();
        },
      );
    };
    pump();
    const out: AsyncIterableIterator<never> = {
      next: () => finished,
      return: () => {
        void iterator.return?.();
        finish();
        return finished;
      },
      [Symbol.asyncIterator]: () => out,
    };
    return out;
  }

  /**
   * Writes a message unless the socket is closing (false then); `sent` once it has gone out to the
   * socket, with the error if it could not. Past the unsent bytes' bound the socket is closed.
   */
  function write(conn: Connection, text: string, sent?: (err?: Error) => void): boolean {
    const socket = conn.socket;
    if (socket?.readyState !== 1 || conn.endingSince !== null) return false;
    if (!conn.corked) {
      // Everything written to the socket in this turn of the event loop leaves in one write (ws
      // writes each message at once): the live feed tells a socket's subscriptions one after
      // another, each in microtasks of its own, and a tick would send each apart.
      conn.corked = true;
      const raw = (socket as unknown as { _socket: Socket })._socket;
      raw.cork();
      setImmediate(() => {
        conn.corked = false;
        raw.uncork();
      });
    }
    socket.send(text, sent);
    if (socket.bufferedAmount > deps.maxBufferedBytes)
      close(conn, POLICY_VIOLATION, `Too slow: more than ${deps.maxBufferedBytes} bytes waited to be sent (STREAM_MAX_BUFFERED_BYTES)`);
    return true;
  }

  /** A pong for a ping: none while the last is unsent, its payload only when small. */
  function pong(conn: Connection, payload: unknown): void {
    if (conn.pongInFlight) return;
    let text = payload === undefined || payload === null ? PONG : JSON.stringify({ type: 'pong', payload });
    if (text.length > MAX_PONG_BYTES) text = PONG;
    conn.pongInFlight = true;
    write(conn, text, (err) => void (conn.pongInFlight = err != null));
  }

  /** Closes a socket ourselves; the sweep cuts it if the close frame does not get through in time. */
  function close(conn: Connection, code: number, reason: string): void {
    if (conn.endingSince !== null) return;
    conn.endingSince = clock();
    conn.socket?.close(code, closeReason(reason));
  }

  /** A refused key or limit: 4403 for a key that is missing, unknown or revoked; 1013 for a limit. */
  function closeFor(conn: Connection, problem: Problem): void {
    close(conn, problem.status === 401 || problem.status === 403 ? CloseCode.Forbidden : TRY_AGAIN_LATER, problem.detail);
  }

  /**
   * The stream limits end the socket: with a reason (its key revoked, its quota used up) each
   * operation gets an `error` naming it and the socket closes with 4403; without (the connection
   * policy needs it back, its lifetime is over) it closes with 1001 and the client reconnects.
   */
  function finish(conn: Connection, reason?: Problem): void {
    if (!reason) {
      close(conn, 1001, 'Going away: the server needs the connection');
      return;
    }
    const payload = JSON.stringify([{ message: reason.detail, extensions: { code: reason.code } }]);
    for (const id of conn.operations.keys()) write(conn, `{"id":${JSON.stringify(id)},"type":"error","payload":${payload}}`);
    close(conn, CloseCode.Forbidden, reason.detail);
  }

  /**
   * What a message or a protocol ping costs the socket, or why it must close: too many before
   * connection_ack, too large before it, more messages or bytes a second than a socket may send
   * (each is read and parsed, pings too).
   */
  function spend(conn: Connection, bytes: number): [number, string] | null {
    if (!conn.acknowledged && ++conn.early > MAX_EARLY_MESSAGES) return [POLICY_VIOLATION, `At most ${MAX_EARLY_MESSAGES} messages before connection_ack`];
    if (!conn.acknowledged && bytes > MAX_EARLY_MESSAGE_BYTES)
      return [POLICY_VIOLATION, `At most ${MAX_EARLY_MESSAGE_BYTES} bytes a message before connection_ack`];
    const now = clock();
    const seconds = (now - conn.inboundAt) / 1000;
    conn.inboundAt = now;
    conn.inbound = Math.min(INBOUND_BURST_BYTES, conn.inbound + seconds * INBOUND_BYTES_PER_SECOND) - bytes;
    conn.messagesLeft = Math.min(MESSAGE_BURST, conn.messagesLeft + seconds * MESSAGES_PER_SECOND) - 1;
    if (conn.inbound < 0) return [POLICY_VIOLATION, `More than ${INBOUND_BYTES_PER_SECOND} bytes a second sent (a burst of ${INBOUND_BURST_BYTES} at most)`];
    if (conn.messagesLeft < 0) return [POLICY_VIOLATION, `More than ${MESSAGES_PER_SECOND} messages a second sent (a burst of ${MESSAGE_BURST} at most)`];
    return null;
  }

  /** A message parsed, or why the socket must close: past what it may send (spend), nested too deep, not a JSON object. */
  function admitted(conn: Connection, data: Buffer): { message: WsMessage } | { refused: [number, string] } {
    const spent = spend(conn, data.length);
    if (spent) return { refused: spent };
    // ws checks a text frame's UTF-8, not a binary frame's: bad bytes would be read as U+FFFD, another word.
    if (!isUtf8(data)) return { refused: [INVALID_PAYLOAD, 'Invalid message received: not UTF-8'] };
    // Nested past the bound for JSON anywhere else: refused before anything parses it.
    if (nestsDeeperThan(data)) return { refused: [CloseCode.BadRequest, 'Invalid message received: JSON nested too deep'] };
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      // Not JSON: refused below with everything that is not an object.
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return { refused: [CloseCode.BadRequest, 'Invalid message received'] };
    return { message: message as WsMessage };
  }

  /** Reads one message: bounded before connection_ack, pings answered here, the rest to graphql-ws. */
  function read(conn: Connection, data: Buffer, handle: (message: unknown) => Promise<void>): void {
    const parsed = admitted(conn, data);
    if ('refused' in parsed) {
      close(conn, ...parsed.refused);
      return;
    }
    const { message } = parsed;
    if (message.type === 'ping') {
      pong(conn, message.payload);
      return;
    }
    // An id whose operation is still ending (completed by the client, not yet by the server) is not
    // taken again: graphql-ws has forgotten it, but it still holds its place until it ends.
    if (message.type === 'subscribe' && typeof message.id === 'string' && conn.operations.has(message.id)) {
      close(conn, CloseCode.SubscriberAlreadyExists, `Subscriber for ${message.id.slice(0, 64)} already exists`);
      return;
    }
    // A persisted or trusted document named without its text runs as over HTTP (graphql-ws asks for a query string).
    if (message.type === 'subscribe' && typeof message.payload === 'object' && message.payload !== null && message.payload.query === undefined)
      message.payload.query = '';
    handle(message).catch((err: unknown) => {
      deps.logger.error({ err, connection: conn.id }, 'a WebSocket message failed');
      close(conn, CloseCode.InternalServerError, 'Internal server error');
    });
  }

  wss.on('connection', (socket: WebSocket, conn: Connection) => {
    conn.socket = socket;
    conn.pingedAt = clock();
    connections.add(conn);
    socket.on('pong', () => void (conn.alive = true));
    // A protocol ping is answered unless the socket's reader is behind.
    socket.on('ping', (data: Buffer) => {
      // A protocol ping is a message like the others (a frame's header counted with its payload).
      const spent = spend(conn, data.length + FRAME_HEADER_BYTES);
      if (spent) close(conn, ...spent);
      else if (socket.bufferedAmount < MAX_PONG_BYTES) socket.pong(data);
    });
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => new Promise<void>((resolve) => write(conn, data, () => resolve()) || resolve()),
        close: (code, reason) => close(conn, code ?? 1000, reason ?? ''),
        // graphql-ws takes a message already parsed as it takes its text.
        onMessage: (cb) => socket.on('message', (data: Buffer) => read(conn, data, cb as unknown as (message: unknown) => Promise<void>)),
      },
      conn,
    );
    socket.once('close', (code: number, reason: Buffer) => {
      connections.delete(conn);
      releaseAll(conn);
      void closed(code, String(reason));
    });
    socket.on('error', (err) => deps.logger.debug({ err, connection: conn.id }, 'WebSocket error'));
  });

  function releaseAll(conn: Connection): void {
    conn.gone = true;
    conn.pendingLease?.release();
    conn.pendingLease = null;
    conn.baseLease = null;
    for (const lease of [...conn.leases]) lease.release();
  }

  // Late sockets, swept on the app's clock: not initialised in time, idle, silent, or not closing.
  const sweep = setInterval(() => {
    const now = clock();
    for (const conn of connections) {
      const socket = conn.socket!;
      if (conn.endingSince !== null) {
        if (now - conn.endingSince >= CLOSE_GRACE_MS) socket.terminate();
      } else if (socket.readyState !== 1) continue;
      else if (!conn.acknowledged && now - conn.openedAt >= deps.initTimeoutMs)
        close(conn, CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
      else if (conn.acknowledged && conn.operations.size === 0 && now - conn.activeAt >= deps.idleTimeoutMs) close(conn, 1000, 'Idle');
      else if (now - conn.pingedAt >= deps.heartbeatMs) {
        if (!conn.alive) {
          socket.terminate();
          continue;
        }
        conn.alive = false;
        conn.pingedAt = now;
        socket.ping();
      }
    }
  }, SWEEP_MS).unref();

  /** Refuses an upgrade before the handshake, as problem+json. */
  function refuse(socket: Duplex, problem: Problem): void {
    socket.end(rawProblemResponse(problem, deps.newId()), () => socket.destroy());
  }

  return {
    /**
     * Takes an upgrade to /graphql the door let in (http/dispatch.ts: path, origin, the key in its
     * headers): it counts against its key, or waits in the pool of sockets without one, then
     * shakes hands; past a bound it is refused before the handshake.
     */
    async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, admitted: AdmittedUpgrade): Promise<void> {
      const now = clock();
      const conn: Connection = {
        socket: null,
        request,
        address: (socket as Socket).remoteAddress ?? '',
        id: admitted.requestId,
        openedAt: now,
        activeAt: now,
        acknowledged: false,
        who: null,
        pendingLease: null,
        holder: null,
        baseLease: null,
        leases: new Set(),
        gone: false,
        operations: new Map(),
        early: 0,
        inbound: INBOUND_BURST_BYTES,
        messagesLeft: MESSAGE_BURST,
        inboundAt: now,
        pongInFlight: false,
        alive: true,
        pingedAt: now,
        corked: false,
        endingSince: null,
      };
      // Whatever the handshake comes to, what it holds is given back when the socket closes.
      socket.once('close', () => releaseAll(conn));
      if (admitted.key) {
        // A key in the upgrade's own headers, checked at the door: the socket counts against it.
        conn.presented = admitted.key.presented;
        const refused = identify(conn, identityOf(admitted.key.verdict));
        if (refused) return refuse(socket, refused);
      } else {
        // The pool may make room by closing the oldest socket of the address holding the most.
        const admitted = deps.pending.admit(conn.address, () =>
          conn.socket ? close(conn, TRY_AGAIN_LATER, 'Try again later: its place was needed (no key sent yet)') : socket.destroy(),
        );
        if (isRefusal(admitted)) return refuse(socket, admitted);
        conn.pendingLease = admitted;
      }
      // Idle (evictable at the connection cap) while it runs nothing.
      markUpgraded(socket as Socket, () => conn.acknowledged && conn.operations.size > 0);
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, conn));
    },
    /** Closes every socket (1001) and stops the sweep. */
    close(): void {
      clearInterval(sweep);
      for (const conn of connections) conn.socket!.close(1001, 'Going away: the server is stopping');
    },
  };
}

/** A message as read, before graphql-ws validates it. */
interface WsMessage {
  type?: unknown;
  id?: unknown;
  payload?: Record<string, unknown>;
}

/** What the WebSocket library found wrong with a handshake, as a problem (its message names the header). */
function handshakeProblem(message: string): Problem {
  if (message === 'Invalid HTTP method')
    return { status: 405, code: 'METHOD_NOT_ALLOWED', detail: 'A WebSocket handshake is a GET.', headers: ['allow', 'GET'] };
  if (message.includes('Sec-WebSocket-Version'))
    return { status: 426, code: 'UPGRADE_REQUIRED', detail: `${message}: this server speaks version 13.`, headers: ['sec-websocket-version', '13'] };
  return { status: 400, code: 'BAD_REQUEST', detail: `${message}.` };
}

/** A socket closed before its key check or operation ended: nothing more is counted for it. */
const SOCKET_GONE: Problem = { status: 499, code: 'CLIENT_CLOSED', detail: 'The socket closed.' };

/** A stream that has ended. */
const NOTHING: AsyncIterableIterator<never> = {
  next: () => Promise.resolve({ done: true, value: undefined }),
  return: () => Promise.resolve({ done: true, value: undefined }),
  [Symbol.asyncIterator]: () => NOTHING,
};

/** A refusal as an operation's error (no stack: it is the client's, not ours). */
const errorOf = (problem: Problem) => new ClientError(problem.detail, { extensions: { code: problem.code } });

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
