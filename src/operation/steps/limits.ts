import { GraphQLError, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { Step } from '../operation.js';
import { repeatedFieldsRule } from './repeated-fields.js';
import { checkedOnce, VALIDATION_FAILED } from './validation-memo.js';

/**
 * How big a document may be, graphql-armor's limits: depth, aliases, directives (here) and tokens
 * (read by the parse step); and how often a field may repeat (repeated-fields.ts). What each
 * operation may cost in data is the cost step's.
 */
export const QUERY_LIMITS = { maxDepth: 12, maxAliases: 15, maxTokens: 2000, maxDirectives: 20 } as const;

const RULES: readonly ValidationRule[] = [
  maxDepthRule({ n: QUERY_LIMITS.maxDepth }),
  maxAliasesRule({ n: QUERY_LIMITS.maxAliases }),
  maxDirectivesRule({ n: QUERY_LIMITS.maxDirectives }),
  repeatedFieldsRule,
];

/** The limits' verdict on a document: armor's rules refuse by throwing. */
export function limitErrors(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] {
  try {
    return validate(schema, document, RULES);
  } catch (err) {
    if (err instanceof GraphQLError) return [err];
    throw err;
  }
}

/** Refuses documents past armor's depth, alias and directive limits and the repeated fields' bound, before the schema's rules walk them. */
export function limitsStep(schema: GraphQLSchema): Step {
  return checkedOnce('limits', (document) => limitErrors(schema, document), VALIDATION_FAILED);
}
