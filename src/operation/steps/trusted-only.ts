import { GraphQLError } from 'graphql';
import { refuse, type Step } from '../operation.js';

const REFUSED = refuse(
  new GraphQLError('Only trusted documents run here (GRAPHQL_TRUSTED_ONLY=on): send the documentId of a document in the manifest.', {
    extensions: { code: 'PERSISTED_QUERY_ONLY' },
  }),
  400,
);

/**
 * GRAPHQL_TRUSTED_ONLY=on: only the manifest's documents run (by id, hash or their exact text),
 * and the server's own (the REST routes'). Before anything parses the text: an arbitrary document
 * costs this server nothing, on any transport.
 */
export const trustedOnlyStep: Step = {
  name: 'trusted-only',
  passedByOwn: true,
  run: (op) => (op.source!.trusted ? undefined : REFUSED),
};
