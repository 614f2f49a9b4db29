import type { z } from 'zod';
import { BadInputError, type ParamProblem } from '../errors.js';

/**
 * Parses parameters with their declared schema, turning every zod issue into a ParamProblem that
 * names the parameter, the value received and the bound. REST and GraphQL both call this, once
 * per request: a REST shim validates its parameters before running its operation and marks the
 * context (`argsValidated`), so the resolvers take those already-parsed values as they are. (The
 * schemas are idempotent on their own output, so the values are what parsing them again gives.)
 */
export function validate<S extends z.ZodType>(schema: S, input: Record<string, unknown>, ctx?: { argsValidated: boolean }): z.output<S> {
  if (ctx?.argsValidated) return input as z.output<S>;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new BadInputError(result.error.issues.map((issue) => toProblem(issue, input)));
}

type Issue = z.core.$ZodIssue;

function toProblem(issue: Issue, input: Record<string, unknown>): ParamProblem {
  const name = issue.path.map(String).join('.') || 'input';
  const value = input[String(issue.path[0])];
  const bound = boundOf(issue, value);
  return { name, value: value ?? null, bound, message: `${name} must be ${bound}` };
}

function boundOf(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case 'too_big':
      if (issue.origin === 'array') return `at most ${issue.maximum} items`;
      return issue.origin === 'string'
        ? `at most ${issue.maximum} characters`
        : `${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'too_small':
      if (issue.origin === 'array') return `at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}`;
      if (issue.origin === 'string') return issue.minimum === 1 ? 'non-empty' : `at least ${issue.minimum} characters`;
      return `${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'invalid_type':
    {
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
