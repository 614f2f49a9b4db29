import { GraphQLError, OverlappingFieldsCanBeMergedRule, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { Step } from '../operation.js';
import { isIncremental } from './execute.js';
import { checkedOnce, VALIDATION_FAILED } from './validation-memo.js';

/**
 * GraphQL's own rules, with the three that @defer and @stream add: Yoga's defer-stream plugin gives
 * them from its validation hook, as it would to any server, for each document that uses either
 * directive (a document is judged once: validation-memo.ts); the plugin is imported with the first
 * such document, since it imports all of graphql-yoga, which nothing else at start needs. Not kept
 * between documents: a mutation run credits only the test that ran the code (and that was the first
 * test to send @defer).
 *
 * The hook also swaps GraphQL's rule for overlapping fields for a copy of its own that compares
 * @stream's arguments too, but not GraphQL's metering of that check: its work grows with the square
 * of the fields of one name, seconds of one core for a document of 2,000 tokens, where GraphQL's
 * stops at a fixed amount ("too large to check"). GraphQL's rule stays: two fields of one name with
 * different @stream arguments are not refused, and are streamed as the first of them asks.
 */
/** The plugin's copy of the overlap rule, by name (a bundler may add a digit to one of the two). */
const isOverlapRule = (rule: ValidationRule) => rule.name.startsWith(OverlappingFieldsCanBeMergedRule.name);

const deferStreamRules = () =>
  import('@graphql-yoga/plugin-defer-stream').then(({ useDeferStream }) => {
    const added: ValidationRule[] = [];
    const hook = useDeferStream().onValidate as unknown as (payload: {
      params: { rules: ValidationRule[] };
      addValidationRule: (rule: ValidationRule) => void;
    }) => void;
    hook({ params: { rules: [...specifiedRules] }, addValidationRule: (rule) => void added.push(rule) });
    return [...specifiedRules, ...added.filter((rule) => !isOverlapRule(rule))];
  });

/**
 * GraphQL's validation stops at fixed bounds of its own (graphql-js 16: at most 100 errors; the
 * check that same-named fields can merge, and the walk of fragment spreads, at a fixed amount of
 * work) and then says only "Validation aborted.": said here with what was too much.
 */
const GRAPHQL_MAX_ERRORS = 100;
const ABORTED = 'Validation aborted.';
const TOO_MANY_ERRORS = 'Too many validation errors, error limit reached. Validation aborted.';
const TOO_MUCH_TO_CHECK = new GraphQLError(
  'The document is too large to check: GraphQL stops comparing fields of the same name (and following fragment spreads) past a fixed amount of work. Ask for each field once, with fewer repeated fields and fragment spreads.',
);
const TOO_MANY_FOUND = new GraphQLError(
  `More than ${GRAPHQL_MAX_ERRORS} validation errors: the first ${GRAPHQL_MAX_ERRORS} are listed, and validation stopped there.`,
);

function explained(errors: readonly GraphQLError[]): readonly GraphQLError[] {
  return errors.map((e) => (e.message === ABORTED ? TOO_MUCH_TO_CHECK : e.message === TOO_MANY_ERRORS ? TOO_MANY_FOUND : e));
}

export function specErrors(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] | Promise<readonly GraphQLError[]> {
  if (!isIncremental(document)) return explained(validate(schema, document, specifiedRules, { maxErrors: GRAPHQL_MAX_ERRORS }));
  return deferStreamRules().then((rules) => explained(validate(schema, document, rules, { maxErrors: GRAPHQL_MAX_ERRORS })));
}

/** The document is valid against the schema (GRAPHQL_VALIDATION_FAILED, with GraphQL's messages). */
export function validateStep(schema: GraphQLSchema): Step {
  return checkedOnce('validate', (document) => specErrors(schema, document), VALIDATION_FAILED);
}
