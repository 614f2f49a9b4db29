import type { PersistedDocuments } from '../persisted-documents.js';
import { refuse, type Source, type Step } from '../operation.js';

const OWN: Source = { text: '', id: () => '', trusted: true };

/**
 * Which document the request runs: its text, an automatic persisted query's hash, a trusted
 * document's id (persisted-documents.ts), or a REST route's own operation (trusted, and checked
 * when it was generated: the parse and validation steps skip it).
 */
export function resolveDocumentStep(documents: PersistedDocuments): Step {
  return {
    name: 'resolve-document',
    run(op) {
      const own = op.request.own;
      if (own) {
        op.source = OWN;
        op.document = own;
        op.checked = true;
        return undefined;
      }
      const found = documents.resolve(op.request);
      if ('error' in found) {
        // A hash the server does not know asks the client for the text: a plain JSON client gets
        // it with 200 (Apollo's protocol), a GraphQL-over-HTTP client with 400, as for request errors.
        return refuse(found.error, 400, found.error.extensions.code === 'PERSISTED_QUERY_NOT_FOUND' ? 200 : 400);
      }
      op.source = found;
      return undefined;
    },
  };
}

/** An automatic persisted query sent with its text is kept once its document has validated. */
export const rememberPersistedStep: Step = {
  name: 'remember-persisted',
  passedByOwn: true,
  run(op) {
    op.source!.store?.();
    return undefined;
  },
};
