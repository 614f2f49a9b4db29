import { GraphQLError } from 'graphql';

/** An RFC 9457 problem as the server answers it (http/problem.ts writes the body). */
export interface Problem {
  status: number;
  detail: string;
  /** Machine-readable code, the same as GraphQL's extensions.code. */
  code: string;
  errors?: unknown[];
  /** Extra response headers, flat [name, value, …]. */
  headers?: readonly string[];
}

/** One invalid parameter: its name, what was received and the bound it broke. */
export interface ParamProblem {
  name: string;
  value: unknown;
  bound: string;
  message: string;
}

/**
 * Errors leave GraphQL with `extensions.code` and REST as problem+json with the same status, so
 * each is declared once as a GraphQLError carrying both.
 *
 * What the client asked wrongly (4xx) is an answer, not a fault, so no stack trace is captured:
 * nobody reads it, and Error's and GraphQLError's two captures were a fifth of a 400's CPU.
 */
export class ClientError extends GraphQLError {
  constructor(message: string, options: { extensions: Record<string, unknown> }) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/** Runs `make` without capturing stack traces (a library's error built for a client's mistake). */
export function withoutStack<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * What invalid parameters are answered with, declared once: thrown as a BadInputError where
 * GraphQL needs an error, answered directly where a REST shim needs only the problem (no error
 * object to build: the GraphQLError alone was a tenth of a malformed request's CPU).
 */
export function badInput(problems: ParamProblem[]): { message: string; extensions: { code: 'BAD_USER_INPUT'; status: 400; errors: ParamProblem[] } } {
  return { message: problems.map((p) => p.message).join('; '), extensions: { code: 'BAD_USER_INPUT', status: 400, errors: problems } };
}

export class BadInputError extends ClientError {
  constructor(readonly problems: ParamProblem[]) {
    const { message, extensions } = badInput(problems);
    super(message, { extensions });
  }
}

export class NotFoundError extends ClientError {
  /** `values`: one value, or several (each is named, e.g. the unknown ids of a list). */
  constructor(what: string, name: string, values: string | readonly string[]) {
    const list = typeof values === 'string' ? [values] : values;
    const named = list.map((v) => JSON.stringify(v)).join(', ');
    super(list.length === 1 ? `${what} ${named} not found` : `${what}s not found: ${named}`, {
      extensions: {
        code: 'NOT_FOUND',
        status: 404,
        errors: list.map((value) => ({
          name,
          value,
          bound: `an existing ${what.toLowerCase()}`,
          message: `no ${what.toLowerCase()} ${JSON.stringify(value)}`,
        })),
      },
    });
  }
}

/** A provider failed or timed out: 502 "provider lookup error"; the cause goes to the log only. */
export class UpstreamFailedError extends GraphQLError {
  constructor(provider: string) {
    super(`provider lookup error: ${provider} did not give a usable answer`, {
      extensions: { code: 'UPSTREAM_FAILED', status: 502, provider },
    });
  }
}

/** What a client past its deadline is told, on every transport. */
export const timeoutMessage = (ms: number) => `The request took longer than the ${ms} ms execution limit.`;

/** The request's deadline passed before its work was done: 503, try again. */
export class TimeoutError extends GraphQLError {
  constructor(ms?: number) {
    super(ms ? timeoutMessage(ms) : 'The request ran out of time.', {
      extensions: { code: 'TIMEOUT', status: 503 },
    });
  }
}

/** A part the request needs is out of reach for now (e.g. the sync leader during a Redis failover): 503, try again. */
export class UnavailableError extends ClientError {
  constructor(code: string, message: string) {
    super(message, { extensions: { code, status: 503 } });
  }
}

/**
 * What the operator must change before the server can start or a command can run (the
 * environment, a manifest, a process holding the database): said in a sentence, without a stack.
 */
export class SetupError extends Error {}
