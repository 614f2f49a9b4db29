import { specifiedRules, validate, type DocumentNode, type GraphQLError, type GraphQLSchema, type ValidationRule } from 'graphql';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import type { Step } from '../operation.js';
import { checkedOnce, VALIDATION_FAILED } from './validation-memo.js';

/**
 * GraphQL's own rules, with @defer and @stream's: Yoga's defer-stream plugin replaces the rule for
 * overlapping fields with one that knows deferred fragments and adds three of its own. Its rules
 * are taken from its validation hook once, as it would give them to any server.
 */
function rulesWithDeferStream(): readonly ValidationRule[] {
  const params = { rules: [...specifiedRules] as ValidationRule[] };
  const hook = useDeferStream().onValidate as unknown as (payload: { params: typeof params; addValidationRule: (rule: ValidationRule) => void }) => void;
  hook({ params, addValidationRule: (rule) => void params.rules.push(rule) });
  return params.rules;
}

const RULES = rulesWithDeferStream();

export function specErrors(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] {
  return validate(schema, document, RULES);
}

/** The document is valid against the schema (GRAPHQL_VALIDATION_FAILED, with GraphQL's messages). */
export function validateStep(schema: GraphQLSchema): Step {
  return checkedOnce('validate', (document) => specErrors(schema, document), VALIDATION_FAILED);
}
