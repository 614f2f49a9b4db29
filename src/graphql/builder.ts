import SchemaBuilder from '@pothos/core';
import { GraphQLScalarType } from 'graphql';
import { GraphQLDate, GraphQLDateTimeISO } from 'graphql-scalars';
import ComplexityPlugin from '@pothos/plugin-complexity';
import ValidationPlugin from '@pothos/plugin-validation';
import { BadInputError } from '../lib/errors.js';
import type { ParamIssue } from '../validation/validate.js';
import type { GraphQLContext } from './context.js';
import { sliced } from './cost-directives.js';

/**
 * One builder for the whole schema. Every field declares what it costs (the complexity plugin's
 * `complexity` option): a list weighs what its `limit` asks for, so a few nested lists cannot
 * multiply into millions of resolutions. The cost of an operation is computed once per request,
 * before execution, by operation/steps/cost.ts, for /graphql and the REST shims alike; the plugin's own
 * per-resolve check is off, so the same analysis never runs twice.
 *
 * A complexity function reads numeric arguments only (limits, days, years, radii): cost.ts keys
 * its memo by the numeric variables, so a cost that depended on a string would be mis-cached.
 *
 * Arguments are validated where they are declared (Pothos' validation plugin) with the shared zod
 * schemas the REST shims parse their parameters with (validation/). DataLoaders live in the request
 * context (data/loaders.ts).
 *
 * A field that shows its parent's property of the same name is `t.expose…`, not a `resolve`
 * function: Pothos leaves such a field without one, and graphql-jit then reads the property inline,
 * where any resolve function is a call with its own resolve info for every item of a list (a page
 * of ZIPs allocated measurably less once `lastUpdated` was exposed).
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: { Date: { Input: string; Output: string }; DateTime: { Input: Date; Output: string | Date } };
}>({
  defaultFieldNullability: false,
  plugins: [ComplexityPlugin, ValidationPlugin],
  // Arguments are parsed with the shared parameter schemas (validation/args.ts): one BAD_USER_INPUT
  // error listing each parameter, the value received and its bound, as REST's problem+json does.
  validation: {
    validationError: (failure) =>
      new BadInputError(
        failure.issues.map(
          (issue) =>
            (issue as ParamIssue).problem ?? { name: issue.path?.map(String).join('.') || 'input', value: null, bound: issue.message, message: issue.message },
        ),
      ),
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    disabled: true,
  },
});

/** A list's weight from its `limit` argument (bad values count as the default; validation rejects them). */
export const byLimit = (fallback: number) =>
  sliced(
    (args: { limit?: number | null }) => ({
      field: 1,
      multiplier: typeof args.limit === 'number' && args.limit > 0 ? Math.min(args.limit, 10_000) : fallback,
    }),
    ['limit'],
  );

/**
 * Dates as graphql-scalars' scalars: `Date` is a calendar day (RFC 3339 full-date, 2027-02-01);
 * `DateTime` an instant, always written in UTC with milliseconds (2027-02-01T08:30:00.000Z), the
 * format of graphql-scalars' DateTimeISO under the usual name.
 */
builder.addScalarType('Date', GraphQLDate);
const dateTimeISO = GraphQLDateTimeISO.toConfig();
/** Already in the output form: stored timestamps are, and pass as they are (parsing each cost a ZIP lookup a third of its time). */
const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    ...dateTimeISO,
    name: 'DateTime',
    description: 'An instant: ISO 8601 in UTC with milliseconds, e.g. 2027-02-01T08:30:00.000Z.',
    serialize: (value) => (typeof value === 'string' && CANONICAL_INSTANT.test(value) ? value : dateTimeISO.serialize(value)),
  }),
);

builder.queryType({
  description:
    "Ski resort conditions and US ZIP codes. Every root field is nullable, as are fields whose arguments can be refused or whose work can fail (history, nearby lists, a state's ZIP pages): an error nulls that field only and is listed in `errors` with its code, while its siblings still answer.",
});
