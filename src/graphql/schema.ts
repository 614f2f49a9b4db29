import { DirectiveLocation, GraphQLBoolean, GraphQLDirective, GraphQLInt, GraphQLNonNull, GraphQLString, specifiedDirectives } from 'graphql';
import { builder } from './builder.js';
import { costDirective, listSizeDirective } from './cost-directives.js';
import './types/health.js';
// Zip before State: the SDL lists types in the order they are implemented.
import './types/zip.js';
import './types/state.js';
import './types/units.js';
import './types/conditions.js';
import './types/inventory.js';
import './types/resort.js';
import './types/lookups.js';
import './types/rankings.js';
import './types/history.js';
import './types/sync.js';
import './types/live.js';

/**
 * The schema in the order it is declared: fields and enum values read in their natural order
 * (BEGINNER before EXPERT), which introspection and the SDL show as they are. The order is fixed
 * by the source, so the printed SDL still diffs cleanly.
 */
/** The incremental delivery directives, as the GraphQL incremental delivery RFC defines them. */
const ifArg = { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: true, description: 'Deliver this part later only when true.' };
const labelArg = { type: GraphQLString, description: 'Names this part in the answer that delivers it.' };
const defer = new GraphQLDirective({
  name: 'defer',
  description: 'Delivers this fragment after the rest of the answer, when the client reads multipart/mixed; others get it in the one answer.',
  locations: [DirectiveLocation.FRAGMENT_SPREAD, DirectiveLocation.INLINE_FRAGMENT],
  args: { if: ifArg, label: labelArg },
});
const stream = new GraphQLDirective({
  name: 'stream',
  description: 'Delivers the items of this list after the first `initialCount`, as they are ready, when the client reads multipart/mixed.',
  locations: [DirectiveLocation.FIELD],
  args: { if: ifArg, label: labelArg, initialCount: { type: GraphQLInt, defaultValue: 0, description: 'Items delivered with the rest of the answer.' } },
});

/**
 * `@defer` and `@stream` are part of it: a client asking for multipart/mixed gets the deferred
 * parts as they are ready (operation/incremental.ts); any other client gets the whole answer at once.
 */
export const schema = builder.toSchema({ sortSchema: false, directives: [...specifiedDirectives, defer, stream, costDirective, listSizeDirective] });
