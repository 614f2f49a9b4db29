import { getNamedType, isLeafType, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';

/** The scalars whose resolvers here return the JavaScript value as it is written out. */
const PLAIN = new Set(['String', 'Float', 'Int', 'Boolean']);

/**
 * Whether every leaf a document selects is a String, Float, Int or Boolean. graphql-jit may then
 * skip its leaf serializers (compileQuery's disableLeafSerialization): each one is a call with a
 * path array and a location array made for every leaf of every list item (350 of each for a
 * 50-ZIP nearby answer), and for these four types it returns what the resolver gave, which
 * Pothos's typed fields (exposeString, exposeFloat, …) already make a string, number or boolean.
 * Not for IDs (a number becomes a string), enums (internal values become names) or our own
 * scalars (DateTime writes an ISO string): a document with any of those keeps the serializers.
 */
export function selectsOnlyPlainLeaves(schema: GraphQLSchema, document: DocumentNode): boolean {
  const info = new TypeInfo(schema);
  let plain = true;
  visit(
    document,
    visitWithTypeInfo(info, {
      Field() {
        const type = info.getType();
        const named = type && getNamedType(type);
        if (!named) plain = false;
        else if (isLeafType(named) && !PLAIN.has(named.name)) plain = false;
      },
    }),
  );
  return plain;
}
