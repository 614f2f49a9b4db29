import { getNamedType, isEnumType, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';

/**
 * Whether no leaf a document selects is an ID or an enum. graphql-jit may then skip its leaf
 * serializers for the built-in scalars (compileQuery's disableLeafSerialization): each one is a call
 * with a path array and a location array made for every leaf of every list item (hundreds for a
 * nearby answer, thousands for a page of ZIPs), and for String, Float, Int and Boolean it
 * returns what the resolver gave, which Pothos's typed fields (exposeString, exposeFloat, …)
 * already make a string, number or boolean. Not for IDs (a number becomes a string) or enums
 * (internal values become names): a document with either keeps them all. Our own scalars
 * (DateTime, Date) are serialized either way: graphql-jit skips only the built-in ones and enums.
 */
export function mayDisableLeafSerialization(schema: GraphQLSchema, document: DocumentNode): boolean {
  const info = new TypeInfo(schema);
  let plain = true;
  visit(
    document,
    visitWithTypeInfo(info, {
      Field() {
        const type = info.getType();
        const named = type && getNamedType(type);
        if (!named) plain = false;
        else if (named.name === 'ID' || isEnumType(named)) plain = false;
      },
    }),
  );
  return plain;
}
