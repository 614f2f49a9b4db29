type Json = Record<string, unknown>;

/**
 * zod writes `x.nullable()` as `anyOf: [x, { type: 'null' }]` when x carries more than its type (a
 * format, bounds, properties). JSON Schema reads `{ ...x, type: [x.type, 'null'] }` the same way
 * (format, bounds and properties constrain only values of their own type), and Scalar's reference
 * (/docs) validates only that form: it logged "document validation errors … Expected union value"
 * for SyncRun, whose `finishedAt` was such an anyOf. Rewritten in place, everywhere under `schema`;
 * an x with `enum` or `const` (which null would fail) or a `$ref` keeps its anyOf.
 */
export function nullablesAsTypeArrays(schema: unknown): void {
  // An array's items are its values too.
  if (!schema || typeof schema !== 'object') return;
  const node = schema as Json;
  for (const value of Object.values(node)) nullablesAsTypeArrays(value);
  const [x, other, ...more] = (Array.isArray(node.anyOf) ? node.anyOf : []) as Json[];
  if (!x || !other || more.length > 0 || other.type !== 'null' || Object.keys(other).length !== 1) return;
  if (typeof x.type !== 'string' || 'enum' in x || 'const' in x || '$ref' in x) return;
  delete node.anyOf;
  Object.assign(node, x, { type: [x.type, 'null'] });
}
