import type { DocumentNode, ExecutionResult, GraphQLError } from 'graphql';
import type { KeyCheck } from '../../auth/guard-answers.js';
import { presentedKey } from '../../auth/presented-key.js';
import type { GraphQLContext, RequestInfo } from '../../graphql/context.js';
import type { Exchange } from '../../http/exchange.js';
import { timeoutMessage } from '../../lib/errors.js';
import { TRANSPORTS, type Outcome } from '../../operation/operation.js';
import type { Pipeline } from '../../operation/pipeline.js';
import type { McpTool } from './tools.js';

export interface CallsDeps {
  pipeline: Pipeline;
  newContext: (request: RequestInfo) => GraphQLContext;
  guard: KeyCheck;
  /** The request deadline (ms), for the message of a call past it. */
  deadlineMs: number;
}

/** An error as an MCP client reads it: its code, then its message. */
export interface CallError {
  code: string;
  message: string;
}

/** What a call answered: the operation's data, or why not. */
export type CallOutcome = { ok: true; data: Record<string, unknown> } | { ok: false; errors: CallError[]; data?: Record<string, unknown> | null };

const errorOf = (e: GraphQLError | { message: string; extensions?: Record<string, unknown> }): CallError => ({
  code: String(e.extensions?.code ?? 'ERROR'),
  message: e.message,
});

/**
 * Tool calls and resource reads as operations of the server's own: each is one request of its key
 * (counted against the quota here; the MCP message carrying it was counted against the rate at
 * the door), then runs through the one pipeline as a document of the server's own, within the
 * HTTP request's deadline, with its exchange's key, scopes and trace.
 */
export function createCalls(deps: CallsDeps) {
  /** Counts one call against the key's quota: null when it may run, else why not. */
  async function admit(ex: Exchange): Promise<CallError | null> {
    const verdict = await deps.guard.check(presentedKey(ex.req.headers), 'quota');
    return verdict.ok ? null : { code: verdict.problem.code, message: verdict.problem.detail };
  }

  async function run(ex: Exchange, document: DocumentNode, variables: Record<string, unknown>): Promise<CallOutcome> {
    const refused = await admit(ex);
    if (refused) return { ok: false, errors: [refused] };
    const context = deps.newContext(ex);
    // Past the deadline the call is answered TIMEOUT; an abort after the pipeline answered changes nothing (the race is settled).
    const timedOut = new Promise<Outcome>((resolve) => {
      const onAbort = () =>
        resolve({ kind: 'refused', status: 503, errors: [{ message: timeoutMessage(deps.deadlineMs), extensions: { code: 'TIMEOUT' } } as never] });
      if (ex.signal.aborted) onAbort();
      else ex.signal.addEventListener('abort', onAbort, { once: true });
    });
    const outcome = await Promise.race([deps.pipeline.run({ own: document, variables, crossSiteSafe: true }, TRANSPORTS.mcp, context), timedOut]);
    ex.cost += context.cost ?? 0;
    return outcomeOf(outcome);
  }

  return {
    /** A tool's operation with the call's arguments as its variables; arguments the tool does not take are refused, naming them. */
    call(ex: Exchange, tool: McpTool, args: Record<string, unknown>): Promise<CallOutcome> {
      const known = tool.inputSchema.properties as Record<string, unknown>;
      const unknown = Object.keys(args).filter((k) => !Object.hasOwn(known, k));
      if (unknown.length > 0) {
        const takes = Object.keys(known);
        const message = `${tool.name} takes no argument ${unknown.map((k) => JSON.stringify(k)).join(', ')}; it takes ${takes.length ? takes.join(', ') : 'none'}.`;
        return Promise.resolve({ ok: false, errors: [{ code: 'BAD_USER_INPUT', message }] });
      }
      return run(ex, tool.document, args);
    },
    run,
    admit,
  };
}

export type Calls = ReturnType<typeof createCalls>;

/** A pipeline's outcome as a call's. */
export function outcomeOf(outcome: Outcome): CallOutcome {
  if (outcome.kind === 'refused') return { ok: false, errors: outcome.errors.map(errorOf) };
  if (outcome.kind !== 'result') return { ok: false, errors: [{ code: 'INTERNAL_SERVER_ERROR', message: 'The operation did not answer with one result.' }] };
  const { data, errors } = outcome.result as ExecutionResult<Record<string, unknown>>;
  if (errors?.length) return { ok: false, errors: errors.map(errorOf), data };
  return { ok: true, data: data ?? {} };
}
