import { GraphQLError } from 'graphql';
import { refuse, type Step } from '../operation.js';

const REFUSED = refuse(
  new GraphQLError('A GET to /graphql must carry an x-api-key, authorization or x-graphql-yoga-csrf header (cross-site request forgery protection).', {
    extensions: { code: 'FORBIDDEN' },
  }),
  403,
);

/**
 * A GET without a header a cross-site page cannot send (our key's, a bearer token, or Yoga's CSRF
 * header) could be a forged <img> or form: refused, with AUTH=off too. POST bodies of our media
 * types need a CORS preflight, so only GETs are checked; a WebSocket's handshake is checked
 * against CORS_ORIGINS by its transport.
 */
export const csrfStep: Step = {
  name: 'csrf',
  passedByOwn: true,
  run: (op) => (op.request.overGet && !op.request.crossSiteSafe ? REFUSED : undefined),
};
