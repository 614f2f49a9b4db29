import type { GraphQLSchema } from 'graphql';
import type { KeyCheck } from '../../auth/guard-answers.js';
import type { GraphQLContext, RequestInfo } from '../../graphql/context.js';
import type { Exchange } from '../../http/exchange.js';
import { CACHE_NONE, JSON_TYPE } from '../../http/headers.js';
import type { Identity } from '../../http/identity.js';
import { sendProblem } from '../../http/problem.js';
import { isRefusal, type StreamLimiter } from '../../http/streams.js';
import type { Problem } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { Pipeline } from '../../operation/pipeline.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createCalls } from './calls.js';
import { invalidParams, isCancellation, isInitialize, readMessage, requestProblem, SESSION_HEADER } from './message.js';
import type { DocumentUri } from './resources.js';
import { McpSession } from './session.js';
import { toolsOf } from './tools.js';
import { createWatcher } from './watch.js';

export interface McpDeps {
  pipeline: Pipeline;
  schema: GraphQLSchema;
  newContext: (request: RequestInfo) => GraphQLContext;
  guard: KeyCheck;
  streams: StreamLimiter;
  logger: Logger;
  corsOrigins: readonly string[];
  maxBodyBytes: number;
  maxBufferedBytes: number;
  /** A session with no request and nothing subscribed for this long ends (ms of the app's clock). */
  idleTimeoutMs: number;
  keepAliveMs: number;
  /** The request deadline (ms). */
  deadlineMs: number;
  documents: Record<DocumentUri, () => string>;
  version: string;
  now: () => Date;
  newId: () => string;
}

const SWEEP_MS = 1000;
const SESSION_ENDED: Problem = {
  status: 404,
  code: 'SESSION_NOT_FOUND',
  detail: 'The MCP session ended (deleted, idle, its key revoked, or the server stopping) before this request was answered. Initialize a new one.',
};
/** Requests one session may have running at once (an agent's calls in parallel). */
const MAX_RUNNING_PER_SESSION = 8;
const INSTRUCTIONS =
  'US ZIP codes and ski resort conditions. Tools look up ZIP codes, distances and places, and resorts near a ZIP with their snow report, ' +
  'forecast and rankings. resort://{id}/conditions and resort://{id}/weather are readable and subscribable: an update comes when the data changes.';

/**
 * The Model Context Protocol at /mcp (Streamable HTTP, the official SDK's transport), for agents:
 * the service's own operations as tools, its documents and each resort's conditions and weather
 * as resources (subscribable), a prompt. Every HTTP message passed the door already (the key,
 * counted against its rate; http/dispatch.ts); here:
 * - a session is one of its key's streams, from initialize to its end, and belongs to that key
 *   (another key's request for it is 404, as for one that ended);
 * - a session with no request and nothing subscribed for MCP_SESSION_IDLE_TIMEOUT_MS ends;
 * - each tool call and resource read is one request of the key against its quota, and runs
 *   through the one pipeline (calls.ts); the answer is JSON (no stream per call), within the
 *   request deadline;
 * - a body is at most MAX_BODY_BYTES, nested at most MAX_JSON_DEPTH, one message (no JSON-RPC
 *   batch: the protocol dropped them), and a browser's Origin must be one CORS_ORIGINS allows;
 *   these mistakes, and what a client sends and accepts, are problem+json here (message.ts).
 */
export function createMcp(deps: McpDeps) {
  const tools = toolsOf(deps.schema);
  const calls = createCalls({ pipeline: deps.pipeline, newContext: deps.newContext, guard: deps.guard, deadlineMs: deps.deadlineMs });
  const watch = createWatcher({ pipeline: deps.pipeline, newContext: deps.newContext, maxBufferedBytes: deps.maxBufferedBytes });
  const sessions = new Map<string, McpSession>();
  const clock = () => deps.now().getTime();
  const sessionDeps = {
    tools,
    calls,
    documents: deps.documents,
    serverInfo: { name: 'ski-zip-gateway', version: deps.version },
    instructions: INSTRUCTIONS,
    newId: deps.newId,
    keepAliveMs: deps.keepAliveMs,
    watch,
  };

  const idle = (s: McpSession, now: number) => s.watched.size === 0 && now - s.activeAt >= deps.idleTimeoutMs;
  const sweep = setInterval(() => {
    const now = clock();
    for (const s of sessions.values()) if (idle(s, now)) s.end();
  }, SWEEP_MS);
  sweep.unref();

  async function handle(ex: Exchange): Promise<void> {
    ex.route = '/mcp';
    // A call past the deadline answers TIMEOUT as its tool result; the dispatcher only aborts its work.
    ex.onTimeOut = (e) => e.expire();
    const { req } = ex;
    const method = req.method ?? 'GET';
    const wrong = requestProblem(req, deps.corsOrigins);
    if (wrong) return sendProblem(ex, wrong);

    const sessionId = req.headers[SESSION_HEADER];
    let session: McpSession | undefined;
    if (sessionId !== undefined) {
      session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (session && idle(session, clock())) session.end();
      if (!session || session.isEnded || session.who.keyId !== ex.keyId)
        return sendProblem(ex, {
          status: 404,
          code: 'SESSION_NOT_FOUND',
          detail: 'No such MCP session: it ended (idle, deleted, or the server restarted) or was never made. Initialize a new one.',
        });
    } else if (method !== 'POST')
      return sendProblem(ex, { status: 400, code: 'BAD_REQUEST', detail: `${method} /mcp needs the ${SESSION_HEADER} header of a session initialize made.` });

    let message: JSONRPCMessage | undefined;
    if (method === 'POST') {
      const read = await readMessage(req, deps.maxBodyBytes);
      if ('status' in read) return sendProblem(ex, read);
      if (!session && !isInitialize(read))
        return sendProblem(ex, {
          status: 400,
          code: 'BAD_REQUEST',
          detail: `Without the ${SESSION_HEADER} header, the message must be an initialize request (jsonrpc, id, method, params with protocolVersion, capabilities, clientInfo).`,
        });
      // A cancelled request would never be answered (the SDK drops its answer): every call ends by
      // itself within the request deadline, so a cancellation is taken and not passed on.
      if (isCancellation(read)) return ex.sendEmpty(202);
      const wrong = invalidParams(read);
      if (wrong) return ex.send(200, JSON_TYPE, JSON.stringify(wrong), ['cache-control', CACHE_NONE]);
      message = read;
    }

    if (!session) {
      const opened = open(ex);
      if (!(opened instanceof McpSession)) return sendProblem(ex, opened);
      session = opened;
    }
    session.activeAt = clock();
    // A request's answer is found by its id: a second request with the id of one still running
    // would take its answer away (the first would never be answered), so it is refused; and a
    // session runs a few at once, not a connection's worth.
    const requestId = message && 'method' in message && 'id' in message ? JSON.stringify(message.id) : null;
    if (requestId !== null) {
      const running = session.running;
      if (running.has(requestId))
        return sendProblem(ex, {
          status: 409,
          code: 'CONFLICT',
          detail: `A request with the id ${requestId.slice(0, 100)} is still running in this session: give each its own id.`,
        });
      if (running.size >= MAX_RUNNING_PER_SESSION)
        return sendProblem(ex, {
          status: 429,
          code: 'TOO_MANY_REQUESTS',
          detail: `This session already runs ${MAX_RUNNING_PER_SESSION} requests; wait for an answer first.`,
          headers: ['retry-after', '1'],
          errors: [
            {
              name: 'requests',
              bound: `at most ${MAX_RUNNING_PER_SESSION} running at once per session`,
              message: `requests must be at most ${MAX_RUNNING_PER_SESSION} running at once per session`,
            },
          ],
        });
      running.set(requestId, ex);
      ex.res.once('close', () => running.delete(requestId));
    }
    // The one notification stream a session may have (the SDK refuses a second with 409).
    if (method === 'GET' && !session.notifications) {
      const res = ex.res;
      session.notifications = res;
      const owner = session;
      res.once('close', () => owner.notifications === res && (owner.notifications = null));
    }
    ex.applyHeaders(CACHE_NONE);
    const auth = { token: '', clientId: String(ex.keyId ?? 'local'), scopes: [], extra: { exchange: ex } };
    await session.transport.handleRequest(Object.assign(req, { auth }), ex.res, message);
    // An initialize that did not make a session (refused by the SDK) gives its place back.
    if (session.id === undefined || !sessions.has(session.id)) session.end();
  }

  /** A new session for the request's key: one of its streams, or why not. */
  function open(ex: Exchange): McpSession | Problem {
    const who: Identity = { keyId: ex.keyId, keyRate: ex.keyRate, keyStreams: ex.keyStreams, scopes: ex.scopes };
    let session: McpSession | null = null;
    const holder = {
      keyId: who.keyId,
      address: ex.req.socket.remoteAddress ?? '',
      keyLimit: who.keyStreams,
      end: (reason?: Problem) => session?.end(reason),
      quotaUsedUp: () => session?.unwatch(),
    };
    let admitted = deps.streams.admit(holder);
    // At the key's bound, its least recently used session that nobody listens on (no notification
    // stream open, nothing subscribed) makes room: SDK clients close without DELETE, and an agent
    // restarted a few times must not wait for the idle time-out of the sessions it left behind.
    if (isRefusal(admitted) && admitted.status === 429) {
      const left = [...sessions.values()]
        .filter((s) => s.who.keyId === who.keyId && s.address === holder.address && s.notifications === null && s.watched.size === 0)
        .sort((a, b) => a.activeAt - b.activeAt)[0];
      if (left) {
        left.end();
        admitted = deps.streams.admit(holder);
      }
    }
    if (isRefusal(admitted)) return admitted;
    session = new McpSession(sessionDeps, who, holder.address, admitted, clock(), {
      initialized: (s) => void sessions.set(s.id!, s),
      ended: (s, reason) => {
        if (s.id) sessions.delete(s.id);
        // Requests still running get an answer: the SDK drops theirs once the session is closed.
        for (const running of s.running.values()) if (!running.answered) sendProblem(running, reason ?? SESSION_ENDED);
        s.running.clear();
        deps.logger.debug({ session: s.id }, 'MCP session ended');
      },
    });
    return session;
  }

  return {
    handle,
    /** Open sessions, for the suite and metrics. */
    sessions: () => sessions.size,
    close(): void {
      clearInterval(sweep);
      for (const s of [...sessions.values()]) s.end();
    },
  };
}
