import { Kind, parse, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { hasScope, type Scope } from '../../auth/scopes.js';
import { NEEDS_SCOPE } from '../../graphql/field-extensions.js';
import { inputSchemaOf, outputSchemaOf, type JsonSchema } from './json-schema.js';
import { MCP_OPERATIONS } from './operations/generated.js';

/** One tool: one of the service's own named operations (src/transports/mcp/operations/*.graphql). */
export interface McpTool {
  /** The operation's name in snake_case (ZipLookup: zip_lookup). */
  name: string;
  /** The operation's name as written, for traces and logs. */
  operationName: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  document: DocumentNode;
  /** A scope the key needs (a root field's NEEDS_SCOPE); null when any key may call it. */
  scope: Scope | null;
  /** A query: it changes nothing (MCP's readOnlyHint). */
  readOnly: boolean;
}

/** ZipLookup → zip_lookup. */
export const toolName = (operationName: string): string => operationName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The scope one of the operation's root fields needs, if any. */
function scopeOf(schema: GraphQLSchema, definition: OperationDefinitionNode): Scope | null {
  const root = schema.getRootType(definition.operation);
  for (const sel of definition.selectionSet.selections) {
    if (sel.kind !== Kind.FIELD) continue;
    const needs = root?.getFields()[sel.name.value]?.extensions[NEEDS_SCOPE];
    if (needs) return needs as Scope;
  }
  return null;
}

/**
 * The tools, one per operation file, each with its schemas derived from the operation (json-schema.ts):
 * a new file is a new tool. Each file holds one named query or mutation.
 */
export function toolsOf(schema: GraphQLSchema, operations = MCP_OPERATIONS): McpTool[] {
  const tools = operations.map(({ file, description, text }) => {
    const document = parse(text);
    const definitions = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const definition = definitions[0];
    if (definitions.length !== 1 || !definition?.name || definition.operation === 'subscription')
      throw new Error(`${file}: a tool's file holds exactly one named query or mutation`);
    return {
      name: toolName(definition.name.value),
      operationName: definition.name.value,
      description,
      inputSchema: inputSchemaOf(schema, document, definition),
      outputSchema: outputSchemaOf(schema, document, definition),
      document,
      scope: scopeOf(schema, definition),
      readOnly: definition.operation === 'query',
    };
  });
  const names = new Set(tools.map((t) => t.name));
  if (names.size !== tools.length) throw new Error('two MCP operations have the same name');
  return tools;
}

/** The tools a key with these scopes may call: those needing a scope it lacks are not listed. */
export const toolsFor = (tools: readonly McpTool[], scopes: string): McpTool[] => tools.filter((t) => !t.scope || hasScope(scopes, t.scope));
