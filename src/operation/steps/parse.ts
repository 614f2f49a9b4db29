import { GraphQLError, type DocumentNode } from 'graphql';
import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import { LRUCache } from 'lru-cache';
import { refuse, type Outcome, type Step } from '../operation.js';
import { QUERY_LIMITS } from './limits.js';

/**
 * Documents longer than this are parsed, validated and run each time they come, never kept: a
 * client sending ever new large documents cannot fill memory with them (or with their compiled
 * forms). The REST operations and GraphiQL's introspection query are a few kilobytes each.
 */
export const MAX_CACHED_DOCUMENT_CHARS = 16 * 1024;

/** Bytes the cache may hold for documents and for parse errors (a parsed document takes about ten times its text). */
const CACHE_BYTES = { documents: 16 * 1024 * 1024, parseErrors: 4 * 1024 * 1024 } as const;
const DOCUMENT_BYTES_PER_CHAR = 10;

export const PARSE_FAILED = 'GRAPHQL_PARSE_FAILED';

/**
 * The document's text parsed, with graphql-armor's token limit (QUERY_LIMITS.maxTokens: a
 * document of more tokens is refused while it is read, before it is built). The same text gets the
 * same document object, kept in a cache bounded in bytes (so the later steps can remember their
 * verdicts per document, and graphql-jit compiles each kept document once); so do its parse errors.
 * `kept` hears of each document the cache keeps: those are worth compiling.
 */
export function parseStep(kept: (document: DocumentNode) => void): Step {
  const documents = new LRUCache<string, DocumentNode>({
    maxSize: CACHE_BYTES.documents,
    sizeCalculation: (_d, text) => text.length * DOCUMENT_BYTES_PER_CHAR,
  });
  const failures = new LRUCache<string, Outcome>({ maxSize: CACHE_BYTES.parseErrors, sizeCalculation: (_e, text) => text.length + 512 });
  return {
    name: 'parse',
    passedByOwn: true,
    run(op) {
      if (op.document) return undefined;
      const text = op.source!.text;
      const known = documents.get(text);
      if (known) {
        op.document = known;
        return undefined;
      }
      const failed = failures.get(text);
      if (failed) return failed;
      let document: DocumentNode;
      try {
        document = new MaxTokensParserWLexer(text, { n: QUERY_LIMITS.maxTokens }).parseDocument();
      } catch (err) {
        const message = err instanceof Error ? err.message : 'Syntax Error';
        const refusal = refuse(
          new GraphQLError(message, {
            ...(err instanceof GraphQLError ? { source: err.source, positions: err.positions } : {}),
            extensions: { code: PARSE_FAILED },
          }),
          400,
          200,
        );
        if (text.length <= MAX_CACHED_DOCUMENT_CHARS) failures.set(text, refusal);
        return refusal;
      }
      op.document = document;
      if (text.length <= MAX_CACHED_DOCUMENT_CHARS) {
        documents.set(text, document);
        kept(document);
      }
      return undefined;
    },
  };
}
