import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLScalarType,
  Kind,
  TypeInfo,
  getNamedType,
  isCompositeType,
  typeFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { z } from 'zod';
import { paramsOfField } from '../../validation/args.js';

/** A JSON Schema (draft 2020-12), as MCP's inputSchema and outputSchema take it. */
export type JsonSchema = { [key: string]: unknown };

/** The keywords of a parameter's bounds copied from its parameter schema (zod's JSON Schema). */
const BOUNDS = ['pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const;

const SCALARS: Record<string, JsonSchema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  ID: { type: 'string' },
  Date: { type: 'string', format: 'date' },
  DateTime: { type: 'string', format: 'date-time' },
};

/** A type that may also be null: `type` widened, or an anyOf for the ones without a single type. */
function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string')
    return { ...schema, type: [schema.type, 'null'], ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
  return { anyOf: [schema, { type: 'null' }] };
}

const described = (schema: JsonSchema, description: string | null | undefined): JsonSchema => (description ? { ...schema, description } : schema);

function scalarOrEnum(type: GraphQLScalarType | GraphQLEnumType): JsonSchema {
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: type.getValues().map((v) => v.value as string) };
  return SCALARS[type.name] ?? {};
}

function inputType(type: GraphQLInputType, depth = 0): JsonSchema {
  if (type instanceof GraphQLNonNull) return inputType(type.ofType, depth);
  if (type instanceof GraphQLList) return { type: 'array', items: inputType(type.ofType, depth) };
  if (type instanceof GraphQLInputObjectType) {
    // Input objects nest a few levels at most here; past that, any object.
    if (depth > 4) return { type: 'object' };
    const fields = Object.values(type.getFields());
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f.name, described(inputType(f.type, depth + 1), f.description)])),
      required: fields.filter((f) => f.type instanceof GraphQLNonNull && f.defaultValue === undefined).map((f) => f.name),
      additionalProperties: false,
    };
  }
  return scalarOrEnum(type);
}

const paramsJson = new WeakMap<z.ZodType, Record<string, JsonSchema>>();
/** The JSON Schema of each parameter of a parameter schema (made once per schema). */
function paramProperties(params: z.ZodType): Record<string, JsonSchema> {
  let properties = paramsJson.get(params);
  if (!properties) {
    const json = z.toJSONSchema(params, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, JsonSchema> };
    paramsJson.set(params, (properties = json.properties ?? {}));
  }
  return properties;
}

/** A parameter's bounds as its parameter schema declares them (and its items', for a list). */
function boundsOf(param: JsonSchema | undefined): JsonSchema {
  if (!param) return {};
  const out: JsonSchema = {};
  for (const k of BOUNDS) if (param[k] !== undefined) out[k] = param[k];
  const items = param.items as JsonSchema | undefined;
  if (items) {
    const itemBounds = boundsOf(items);
    if (Object.keys(itemBounds).length > 0) out.items = itemBounds;
  }
  return out;
}

/** Merges bounds into a type's schema (an array's item bounds into its items). */
function withBounds(schema: JsonSchema, bounds: JsonSchema): JsonSchema {
  const { items, ...own } = bounds;
  const merged: JsonSchema = { ...schema, ...own };
  if (items && schema.items) merged.items = { ...(schema.items as JsonSchema), ...(items as JsonSchema) };
  return merged;
}

/**
 * The JSON Schema of an operation's variables, for a tool's `inputSchema`: each variable's GraphQL
 * type, with the description and the bounds of the argument it is given to (the field's parameter
 * schema, declared once in src/validation/). A variable without a default that the operation
 * requires is required.
 */
export function inputSchemaOf(schema: GraphQLSchema, document: DocumentNode, definition: OperationDefinitionNode): JsonSchema {
  const usedAt = new Map<string, { description?: string | null; bounds: JsonSchema }>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        if (node.value.kind !== Kind.VARIABLE) return;
        const name = node.value.name.value;
        const arg = typeInfo.getArgument();
        const field = typeInfo.getFieldDef();
        if (!arg || usedAt.has(name)) return;
        const found = field ? paramsOfField(field) : null;
        const param = found ? paramProperties(found.params)[found.names[arg.name] ?? arg.name] : undefined;
        usedAt.set(name, { description: arg.description, bounds: boundsOf(param) });
      },
    }),
  );
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const v of definition.variableDefinitions ?? []) {
    const name = v.variable.name.value;
    const type = typeFromAST(schema, v.type) as GraphQLInputType | undefined;
    if (!type) continue;
    const use = usedAt.get(name);
    properties[name] = described(withBounds(inputType(type), use?.bounds ?? {}), use?.description);
    if (type instanceof GraphQLNonNull && !v.defaultValue) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * The JSON Schema of an operation's `data`, for a tool's `outputSchema`: the fields it selects
 * with their types, nullability and descriptions. Fragments are read in place; a field under a
 * type condition narrower than its parent's type is optional.
 */
export function outputSchemaOf(schema: GraphQLSchema, document: DocumentNode, definition: OperationDefinitionNode): JsonSchema {
  const root = schema.getRootType(definition.operation);
  if (!root) return { type: 'object' };
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));

  function objectOf(type: GraphQLObjectType, selectionSet: SelectionSetNode): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required = new Set<string>();
    const collect = (set: SelectionSetNode, certain: boolean) => {
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          const key = sel.alias?.value ?? sel.name.value;
          if (sel.name.value === '__typename') properties[key] = { type: 'string' };
          else {
            const field = type.getFields()[sel.name.value];
            if (!field) continue;
            properties[key] = described(outputType(field.type, sel.selectionSet), field.description);
          }
          if (certain && !sel.directives?.length) required.add(key);
        } else {
          const condition = sel.kind === Kind.INLINE_FRAGMENT ? sel.typeCondition?.name.value : fragments.get(sel.name.value)?.typeCondition.name.value;
          const body = sel.kind === Kind.INLINE_FRAGMENT ? sel.selectionSet : fragments.get(sel.name.value)?.selectionSet;
          if (body) collect(body, certain && (condition === undefined || condition === type.name) && !sel.directives?.length);
        }
      }
    };
    collect(selectionSet, true);
    return { type: 'object', properties, required: [...required] };
  }

  function outputType(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
    if (type instanceof GraphQLNonNull) return nonNull(type.ofType, selectionSet);
    return orNull(nonNull(type, selectionSet));
  }

  function nonNull(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
    if (type instanceof GraphQLNonNull) return nonNull(type.ofType, selectionSet);
    if (type instanceof GraphQLList) return { type: 'array', items: outputType(type.ofType, selectionSet) };
    if (type instanceof GraphQLObjectType && selectionSet) return objectOf(type, selectionSet);
    if (isCompositeType(getNamedType(type))) return { type: 'object' };
    return scalarOrEnum(type as GraphQLScalarType | GraphQLEnumType);
  }

  return objectOf(root, definition.selectionSet);
}
