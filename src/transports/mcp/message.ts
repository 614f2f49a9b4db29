import type { IncomingMessage } from 'node:http';
import {
  ClientRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { readBody } from '../../http/body.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../http/json-guard.js';
import { allowsOrigin, sameOrigin } from '../../http/security.js';
import type { Problem } from '../../lib/errors.js';

export const SESSION_HEADER = 'mcp-session-id';
const VERSION_HEADER = 'mcp-protocol-version';
const METHODS = 'POST, GET, DELETE';

const badRequest = (detail: string, name?: string, bound?: string): Problem => ({
  status: 400,
  code: 'BAD_REQUEST',
  detail,
  ...(name && bound ? { errors: [{ name, bound, message: `${name} must be ${bound}` }] } : {}),
});

const accepts = (req: IncomingMessage, type: string) => (req.headers.accept ?? '').split(',').some((t) => t.split(';')[0]!.trim() === type);

/**
 * What is wrong with an MCP request before its body is read, as problem+json says it (the SDK's
 * transport would answer the same mistakes with JSON-RPC errors): the method, the page's origin,
 * what the client accepts and sends, the protocol version it names.
 */
export function requestProblem(req: IncomingMessage, corsOrigins: readonly string[]): Problem | null {
  const method = req.method ?? 'GET';
  if (method !== 'POST' && method !== 'GET' && method !== 'DELETE')
    return { status: 405, code: 'METHOD_NOT_ALLOWED', detail: `${method} is not allowed here; use ${METHODS}`, headers: ['allow', METHODS] };
  const origin = req.headers.origin;
  if (origin !== undefined && !allowsOrigin(origin, corsOrigins) && !sameOrigin(origin, req.headers.host))
    return { status: 403, code: 'FORBIDDEN', detail: `The origin ${origin} may not use /mcp here (CORS_ORIGINS).` };
  const version = req.headers[VERSION_HEADER];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
    return badRequest(`Unsupported MCP protocol version in ${VERSION_HEADER}.`, VERSION_HEADER, `one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`);
  if (method === 'POST') {
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'An MCP message is sent as application/json.' };
    if (!accepts(req, 'application/json') || !accepts(req, 'text/event-stream'))
      return { status: 406, code: 'NOT_ACCEPTABLE', detail: 'An MCP client accepts both application/json and text/event-stream (Streamable HTTP).' };
  }
  if (method === 'GET' && !accepts(req, 'text/event-stream'))
    return { status: 406, code: 'NOT_ACCEPTABLE', detail: 'GET /mcp opens a session’s notification stream: accept text/event-stream.' };
  return null;
}

/** A POST's body as one JSON-RPC message, or what is wrong with it (an oversized body throws BodyTooLargeError: 413). */
export async function readMessage(req: IncomingMessage, maxBodyBytes: number): Promise<JSONRPCMessage | Problem> {
  const raw = await readBody(req, maxBodyBytes);
  if (nestsDeeperThan(raw)) return badRequest(`The body nests deeper than ${MAX_JSON_DEPTH} levels.`, 'body', `nested at most ${MAX_JSON_DEPTH} levels`);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return badRequest('The body is not JSON: one JSON-RPC message.');
  }
  if (Array.isArray(body)) return badRequest('One JSON-RPC message per request: batches are not part of MCP.');
  const parsed = JSONRPCMessageSchema.safeParse(body);
  return parsed.success ? parsed.data : badRequest('The body is not a JSON-RPC 2.0 message (jsonrpc, and a method or a result or an error).');
}

/** A whole initialize request (the only message that may come without a session): one the SDK would refuse opens no session. */
export const isInitialize = (message: JSONRPCMessage): boolean => InitializeRequestSchema.safeParse(message).success && 'id' in message;

/** A client's cancellation of one of its requests. */
export const isCancellation = (message: JSONRPCMessage): boolean => 'method' in message && message.method === 'notifications/cancelled' && !('id' in message);

/** The SDK's schema of each request a client may send, by its method. */
const REQUESTS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));
/** At most this many of a request's wrong params are named. */
const MAX_NAMED = 3;

/**
 * A request whose params do not fit its method, answered as JSON-RPC's invalid params (-32602)
 * naming each wrong param and what it must be; the SDK would answer an internal error (-32603)
 * with its validator's dump. A method MCP does not have is left to the SDK (method not found).
 */
export function invalidParams(message: JSONRPCMessage): JSONRPCErrorResponse | null {
  if (!('method' in message) || !('id' in message)) return null;
  const parsed = REQUESTS.get(message.method)?.safeParse(message);
  if (!parsed || parsed.success) return null;
  const named = parsed.error.issues.slice(0, MAX_NAMED).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  return { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${message.method}: ${named.join('; ')}` } };
}
