import { ClientError } from '../lib/errors.js';

/** What a key may do beyond reading. `admin`: start sync runs, and anything else that writes. */
export const KNOWN_SCOPES = ['admin'];

export type Scope = 'admin';

export function hasScope(scopes: string, scope: Scope): boolean {
  return scopes.split(' ').includes(scope);
}

/** 403: the key is valid but may not do this. */
export class ForbiddenError extends ClientError {
  constructor(scope: Scope, what: string) {
    super(`${what} needs a key with the ${scope} scope (npm run keys -- create --name NAME --scope ${scope}).`, {
      extensions: { code: 'FORBIDDEN', status: 403 },
    });
  }
}
