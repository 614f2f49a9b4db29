import type { z } from 'zod';
import { paramIssues, type ParamIssue } from './validate.js';

/** Drops arguments given as null: a parameter schema reads an absent value as its default. */
export const dropNulls = (args: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const k in args) if (args[k] !== null && args[k] !== undefined) out[k] = args[k];
  return out;
};

/**
 * A GraphQL field's arguments validated with a parameter schema (declared once in validation/
 * and shared with the REST shims), as a standard schema for Pothos' validation plugin: declared
 * with the arguments (`args: t.validate({ … }, argsOf(Schema))`), the resolver gets the parsed
 * values (defaults, case folded, numbers from strings). `fromArgs` maps GraphQL's argument names
 * onto the schema's where they differ. A failure carries each problem as REST names it (the
 * builder's `validationError` turns them into one BAD_USER_INPUT error).
 */
export function argsOf<S extends z.ZodType, A = Record<string, unknown>>(
  schema: S,
  fromArgs: (args: A) => Record<string, unknown> = dropNulls as never,
  names: Readonly<Record<string, string>> = {},
) {
  return {
    /** The parameter schema itself and the argument names it calls otherwise: what tools derive their bounds from (paramsOfField). */
    params: schema,
    names,
    '~standard': {
      version: 1 as const,
      vendor: 'ski-zip-gateway',
      validate(args: unknown): { value: z.output<S>; issues?: undefined } | { issues: ParamIssue[] } {
        const input = fromArgs(args as A);
        const result = schema.safeParse(input);
        if (result.success) return { value: result.data };
        return { issues: paramIssues(result.error, input) };
      },
    },
  };
}

/** What argsOf left on a field's arguments for Pothos' validation plugin, if anything. */
interface ValidatedArgs {
  params?: z.ZodType;
  names?: Readonly<Record<string, string>>;
}

/**
 * The parameter schema a GraphQL field's arguments are validated with (argsOf's), and the name
 * each argument has in it: where the bounds of the field's arguments are declared.
 */
export function paramsOfField(field: {
  args: readonly { extensions: Readonly<Record<string, unknown>> }[];
}): { params: z.ZodType; names: Readonly<Record<string, string>> } | null {
  for (const arg of field.args) {
    const validation = arg.extensions['@pothos/plugin-validation'] as { parentSchemas?: readonly ValidatedArgs[] } | undefined;
    const found = validation?.parentSchemas?.find((s) => s.params);
    if (found?.params) return { params: found.params, names: found.names ?? {} };
  }
  return null;
}
