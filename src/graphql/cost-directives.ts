import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';

/**
 * What each field costs, in the SDL: the `@cost` and `@listSize` directives of IBM's GraphQL cost
 * specification, derived from the same `complexity` options the cost analysis runs on (builder.ts),
 * so a tool can work out a query's cost before sending it. `weight` is the field's own cost with
 * its arguments' defaults; `assumedSize` the multiplier its list gets then; `slicingArguments`
 * the argument that sets that multiplier when given.
 */
export const costDirective = new GraphQLDirective({
  name: 'cost',
  description: 'The cost of resolving this field once (IBM GraphQL cost specification), with its arguments’ defaults.',
  locations: [DirectiveLocation.FIELD_DEFINITION],
  args: { weight: { type: new GraphQLNonNull(GraphQLString) } },
});
export const listSizeDirective = new GraphQLDirective({
  name: 'listSize',
  description:
    'How many items this list field is counted as: `assumedSize`, or the value of the first `slicingArguments` given (IBM GraphQL cost specification).',
  locations: [DirectiveLocation.FIELD_DEFINITION],
  args: {
    assumedSize: { type: GraphQLInt },
    slicingArguments: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
    sizedFields: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
    requireOneSlicingArgument: { type: GraphQLBoolean, defaultValue: true },
  },
});

/** A complexity function whose list multiplier is one of its arguments (a page's limit). */
export type Sliced<F> = F & { slicingArguments: readonly string[] };
export const sliced = <F extends (...args: never[]) => unknown>(fn: F, slicingArguments: readonly string[]): Sliced<F> =>
  Object.assign(fn, { slicingArguments });

type Complexity = number | { field?: number; multiplier?: number } | ((args: Record<string, unknown>) => { field?: number; multiplier?: number } | number);

export interface FieldCost {
  weight: number;
  assumedSize?: number;
  slicingArguments?: readonly string[];
}

/** A field's cost as the analysis sees it with every argument at its default (Pothos' defaults: 1, and 10 items for a list). */
export function fieldCost(field: GraphQLField<unknown, unknown>): FieldCost {
  let option = (field.extensions as { complexity?: Complexity } | undefined)?.complexity;
  const slicing = typeof option === 'function' ? (option as Partial<Sliced<() => void>>).slicingArguments : undefined;
  if (typeof option === 'function') {
    const defaults = Object.fromEntries(field.args.filter((a) => a.defaultValue !== undefined).map((a) => [a.name, a.defaultValue]));
    option = option(defaults);
  }
  const list = isListType(isNonNullType(field.type) ? field.type.ofType : field.type);
  const weight = typeof option === 'number' ? option : (option?.field ?? 1);
  const multiplier = typeof option === 'object' && option.multiplier !== undefined ? option.multiplier : list ? 10 : 1;
  return { weight, ...(list || multiplier !== 1 ? { assumedSize: multiplier } : {}), ...(slicing ? { slicingArguments: slicing } : {}) };
}

/**
 * Puts each field's `@cost` / `@listSize` where printSchemaWithDirectives reads applied directives
 * (`extensions.directives`): for the printed SDL (scripts/print-schema.ts).
 */
export function annotateCosts(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      const c = fieldCost(field);
      const directives: Record<string, unknown> = { cost: { weight: String(c.weight) } };
      if (c.assumedSize !== undefined)
        directives.listSize = { assumedSize: c.assumedSize, ...(c.slicingArguments ? { slicingArguments: c.slicingArguments } : {}) };
      (field as { extensions: Record<string, unknown> }).extensions = { ...field.extensions, directives };
    }
  }
}
