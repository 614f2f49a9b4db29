import { BREAK, specifiedRules, validate, visit, type DocumentNode, type GraphQLError, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { Step } from '../operation.js';
import { checkedOnce, VALIDATION_FAILED } from './validation-memo.js';

/**
 * GraphQL's own rules, with @defer and @stream's: Yoga's defer-stream plugin replaces the rule for
 * overlapping fields with one that knows deferred fragments and adds three of its own. Its rules
 * are taken from its validation hook once, as it would give them to any server. They are loaded
 * with the first document that uses either directive: importing them imports all of graphql-yoga,
 * which nothing else at start needs. On a document without them GraphQL's own rules judge: they
 * find the same, and meter the overlap check, which Yoga's copy of that rule does not.
 */
let withDeferStream: Promise<readonly ValidationRule[]> | undefined;
const deferStreamRules = () =>
  (withDeferStream ??= import('@graphql-yoga/plugin-defer-stream').then(({ useDeferStream }) => {
    const params = { rules: [...specifiedRules] as ValidationRule[] };
    const hook = useDeferStream().onValidate as unknown as (payload: { params: typeof params; addValidationRule: (rule: ValidationRule) => void }) => void;
    hook({ params, addValidationRule: (rule) => void params.rules.push(rule) });
    return params.rules;
  }));

const INCREMENTAL = new Set(['defer', 'stream']);

/** Whether the document names @defer or @stream anywhere (its operations' or fragments'). */
function usesDeferOrStream(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (!INCREMENTAL.has(node.name.value)) return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

export function specErrors(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] | Promise<readonly GraphQLError[]> {
  if (!usesDeferOrStream(document)) return validate(schema, document, specifiedRules);
  return deferStreamRules().then((rules) => validate(schema, document, rules));
}

/** The document is valid against the schema (GRAPHQL_VALIDATION_FAILED, with GraphQL's messages). */
export function validateStep(schema: GraphQLSchema): Step {
  return checkedOnce('validate', (document) => specErrors(schema, document), VALIDATION_FAILED);
}
