import type { z } from 'zod';
import { BadInputError, withoutStack, type ParamProblem } from '../lib/errors.js';

/**
 * Parses parameters with their declared schema, turning every zod issue into a ParamProblem that
 * names the parameter, the value received and the bound. The REST shims parse their query and
 * path values with it; GraphQL fields parse their arguments with the same schemas through Pothos'
 * validation plugin (validation/args.ts). The schemas are idempotent on their own output, so a
 * REST shim's parsed values parse again to themselves when its operation runs.
 */
export function validate<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.output<S> {
  const parsed = parseParams(schema, input);
  if (parsed.ok) return parsed.value;
  throw new BadInputError(parsed.problems);
}

/** The same without throwing: the parsed values, or what is wrong with them. */
export function parseParams<S extends z.ZodType>(
  schema: S,
  input: Record<string, unknown>,
): { ok: true; value: z.output<S> } | { ok: false; problems: ParamProblem[] } {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: paramIssues(result.error, input).map((i) => i.problem) };
}

/** A standard-schema issue that carries its problem as our errors name it. */
export interface ParamIssue {
  readonly message: string;
  readonly path: readonly PropertyKey[];
  readonly problem: ParamProblem;
}

type Issue = z.core.$ZodIssue;

/** A failed parse's issues with their problems, each problem said once (two checks of one value can name the same bound). */
export function paramIssues(error: z.ZodError, input: Record<string, unknown>): ParamIssue[] {
  const out: ParamIssue[] = [];
  const said = new Set<string>();
  // zod builds its error (an Error) when it is first read: without a stack, like ours.
  for (const issue of withoutStack(() => error.issues)) {
    const problem = problemOf(issue, input);
    if (said.has(problem.message)) continue;
    said.add(problem.message);
    out.push({ message: issue.message, path: issue.path, problem });
  }
  return out;
}

export function problemOf(issue: Issue, input: Record<string, unknown>): ParamProblem {
  const name = issue.path.map(String).join('.') || 'input';
  const value = input[String(issue.path[0])];
  const bound = boundOf(issue, value);
  return { name, value: value ?? null, bound, message: `${name} must be ${bound}` };
}

function boundOf(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case 'too_big':
      if (issue.origin === 'array') return `at most ${issue.maximum} items`;
      return issue.origin === 'string' ? `at most ${issue.maximum} characters` : `${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'too_small':
      if (issue.origin === 'array') return `at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}`;
      if (issue.origin === 'string') return issue.minimum === 1 ? 'non-empty' : `at least ${issue.minimum} characters`;
      return `${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'invalid_type': {
      if (value === undefined) return 'given (it is required)';
      // A schema may declare its own bound as the message (e.g. "an integer"); zod's default starts "Invalid".
      const declared = issue.message.startsWith('Invalid') ? null : issue.message;
      const what = declared ?? `a finite ${issue.expected}`;
      return Array.isArray(value) ? `a single ${what.replace(/^an? (finite )?/, '')}` : what;
    }
    default:
      // Formats carry their bound as the message declared beside the schema (e.g. "exactly 5 digits").
      return issue.message;
  }
}
