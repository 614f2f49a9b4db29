import type { ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Exchange } from '../../http/exchange.js';
import type { Identity } from '../../http/identity.js';
import type { StreamLease } from '../../http/streams.js';
import type { Problem } from '../../lib/errors.js';
import { releaseAnsweredStreams } from './answered-streams.js';
import type { CallOutcome, Calls } from './calls.js';
import { getPrompt, PROMPTS } from './prompts.js';
import { DOCUMENTS, documentList, MAX_WATCHED_RESORTS, readerOf, targetOf, templates, type DocumentUri } from './resources.js';
import { toolsFor, type McpTool } from './tools.js';
import type { Watch, Watcher } from './watch.js';

export interface SessionDeps {
  tools: readonly McpTool[];
  calls: Calls;
  /** The service's documents as resources. */
  documents: Record<DocumentUri, () => string>;
  serverInfo: { name: string; version: string };
  instructions: string;
  newId: () => string;
  /** How often an open notification stream gets a keep-alive comment (ms). */
  keepAliveMs: number;
  /** Starts watching resorts for the session: their updates reach `changed`. */
  watch: (session: Watcher, ids: readonly string[]) => Promise<Watch | CallOutcome>;
}

/** The exchange a message came in on: the endpoint hands it to the SDK as the request's auth info. */
export const exchangeOf = (extra: { authInfo?: { extra?: Record<string, unknown> } }): Exchange => extra.authInfo?.extra?.exchange as Exchange;

/** A call's answer as MCP's tool result: the data as structured content and as its JSON text, or the errors, each with its code. */
export function toolResult(outcome: CallOutcome): CallToolResult {
  if (outcome.ok) return { content: [{ type: 'text', text: JSON.stringify(outcome.data) }], structuredContent: outcome.data };
  const text = outcome.errors.map((e) => `${e.code}: ${e.message}`).join('\n');
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * One MCP session: the SDK's server and its Streamable HTTP transport, for one key. It holds one
 * of its key's streams from initialize to its end (its notification stream and its watched
 * resorts ride on it), whoever ends it: DELETE, the idle time-out, the stream limits, shutdown.
 */
export class McpSession implements Watcher {
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  /** When a request last came (the app's clock, ms). */
  activeAt: number;
  /** Its requests still running, by id (JSON text), each answered once: by the SDK, or by the end of the session. */
  readonly running = new Map<string, Exchange>();
  /** The open GET stream notifications go out on, if any: its unsent bytes are bounded. */
  notifications: ServerResponse | null = null;
  /** Resource URIs subscribed to, by resort id. */
  readonly watched = new Map<string, Set<string>>();
  private watching: Watch | null = null;
  private ended = false;

  constructor(
    private readonly deps: SessionDeps,
    readonly who: Identity,
    /** The client address that opened it. */
    readonly address: string,
    private readonly lease: StreamLease,
    now: number,
    private readonly on: { initialized(session: McpSession): void; ended(session: McpSession, reason?: Problem): void },
  ) {
    this.activeAt = now;
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: deps.newId,
      onsessioninitialized: () => on.initialized(this),
      enableJsonResponse: true,
      keepAliveMs: deps.keepAliveMs,
    });
    releaseAnsweredStreams(this.transport);
    this.server = new Server(deps.serverInfo, {
      // logging: a session ended for a reason (its key revoked) says why on its notification
      // stream first, as every other stream's end does.
      capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {} },
      instructions: deps.instructions,
    });
    this.handle();
    void this.server.connect(this.transport);
    // Set after connect, which takes the transport's onclose for the server's own.
    const serverClose = this.transport.onclose;
    this.transport.onclose = () => {
      serverClose?.();
      this.end();
    };
  }

  get id(): string | undefined {
    return this.transport.sessionId;
  }

  private handle(): void {
    const { tools, calls } = this.deps;
    const byName = new Map(tools.map((t) => [t.name, t]));
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: toolsFor(tools, this.who.scopes).map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema as { type: 'object' },
        outputSchema: t.outputSchema as { type: 'object' },
        annotations: { readOnlyHint: t.readOnly, openWorldHint: false },
      })),
    }));
    this.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool ${JSON.stringify(request.params.name)}; tools/list names them.`);
      return toolResult(await calls.call(exchangeOf(extra), tool, request.params.arguments ?? {}));
    });
    this.server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: documentList() }));
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: templates() }));
    this.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const { uri } = request.params;
      const target = targetOf(uri);
      if (!target) throw notFound(uri);
      if (target.kind === 'document') {
        // A read is a call, as every resource read is.
        const refused = await calls.admit(exchangeOf(extra));
        if (refused) throw new McpError(ErrorCode.InvalidRequest, `${refused.code}: ${refused.message}`);
        const doc = target.uri as DocumentUri;
        return { contents: [{ uri, mimeType: DOCUMENTS[doc].mimeType, text: this.deps.documents[doc]() }] };
      }
      const outcome = await calls.run(exchangeOf(extra), readerOf(tools, target.view).document, { id: target.resortId });
      if (!outcome.ok) throw new McpError(ErrorCode.InvalidParams, outcome.errors.map((e) => `${e.code}: ${e.message}`).join('\n'));
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(outcome.data.resort) }] };
    });
    this.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const { uri } = request.params;
      const target = targetOf(uri);
      if (target?.kind !== 'resort') throw new McpError(ErrorCode.InvalidParams, `Only resort resources change: ${uri} cannot be subscribed to.`);
      // One URI per resort and view, however the client spelt it (resort://VAIL/… is resort://vail/…).
      const canonical = target.uri;
      const uris = this.watched.get(target.resortId);
      if (uris) {
        uris.add(canonical);
        return {};
      }
      if (this.watched.size >= MAX_WATCHED_RESORTS)
        throw new McpError(ErrorCode.InvalidParams, `A session watches at most ${MAX_WATCHED_RESORTS} resorts; unsubscribe from one first.`);
      // Watching a new resort is a call, as a subscription is a request.
      const refused = await calls.admit(exchangeOf(extra));
      if (refused) throw new McpError(ErrorCode.InvalidRequest, `${refused.code}: ${refused.message}`);
      await this.rewatch([...this.watched.keys(), target.resortId]);
      this.watched.set(target.resortId, new Set([canonical]));
      return {};
    });
    this.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      const target = targetOf(request.params.uri);
      const uris = target?.kind === 'resort' ? this.watched.get(target.resortId) : undefined;
      if (target?.kind !== 'resort' || !uris?.delete(target.uri)) return {};
      if (uris.size === 0) {
        this.watched.delete(target.resortId);
        await this.rewatch([...this.watched.keys()]);
      }
      return {};
    });
    this.server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS }));
    this.server.setRequestHandler(GetPromptRequestSchema, (request) => getPrompt(request.params.name, request.params.arguments ?? {}));
  }

  /** Watches these resorts instead (one subscription for all of them); refused, the old watch stays. */
  private async rewatch(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) {
      this.watching?.stop();
      this.watching = null;
      return;
    }
    const started = await this.deps.watch(this, ids);
    if (!('stop' in started)) {
      const message = started.ok ? 'The resort could not be watched.' : started.errors.map((e) => `${e.code}: ${e.message}`).join('\n');
      throw new McpError(ErrorCode.InvalidParams, message);
    }
    if (this.ended) return started.stop();
    this.watching?.stop();
    this.watching = started;
  }

  /** Stops every resource subscription (its key's quota is used up: updates are answers too). */
  unwatch(): void {
    this.watching?.stop();
    this.watching = null;
    this.watched.clear();
  }

  /** A watched resort changed: each of its subscribed resources is told. */
  changed(resortId: string): void {
    for (const uri of this.watched.get(resortId) ?? []) void this.server.sendResourceUpdated({ uri }).catch(() => {});
  }

  /**
   * Ends the session (once): its streams closed, its watch stopped, its place among its key's
   * streams given back. With a reason, a notification stream still open and reading is told it
   * first (an MCP log message at `error`, the problem as its data), and requests still running get
   * it as their answer.
   */
  end(reason?: Problem): void {
    if (this.ended) return;
    this.ended = true;
    this.unwatch();
    this.lease.release();
    this.on.ended(this, reason);
    const stream = this.notifications;
    // One that has not drained does not read: it is cut (reset, so the kernel drops what it still
    // holds for it too), not left holding what it will never take.
    if (stream?.writableNeedDrain) stream.socket?.resetAndDestroy() ?? stream.destroy();
    const told =
      reason && stream && !stream.destroyed
        ? this.server.sendLoggingMessage(
            { level: 'error', logger: 'gateway', data: { status: reason.status, code: reason.code, detail: reason.detail } },
            this.id,
          )
        : undefined;
    if (told) void told.catch(() => undefined).then(() => this.transport.close());
    else void this.transport.close();
  }

  get isEnded(): boolean {
    return this.ended;
  }
}

/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;
const notFound = (uri: string) => new McpError(RESOURCE_NOT_FOUND, `No resource ${uri}: resources/list and resources/templates/list name them.`);
