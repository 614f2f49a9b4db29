import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { openApiDocument } from '../../src/transports/rest/openapi.js';
import { routes } from '../../src/transports/rest/routes.js';
import { API_VERSION } from '../../src/lib/version.js';

/**
 * The OpenAPI document built from the route table (transports/rest/openapi.ts) is, byte for byte,
 * the committed schema/openapi.json: what the server serves, what review sees and what two linters
 * and a validator check (openapi-lint.test, test/openapi.test). A change to how the document is
 * built shows here as a difference, as `npm run codegen` would write it.
 */
it('the document built from the route table is the committed schema/openapi.json, as codegen writes it', () => {
  const committed = readFileSync(path.join(import.meta.dirname, '..', '..', 'schema', 'openapi.json'), 'utf8');
  expect(`${JSON.stringify(openApiDocument(routes, API_VERSION, schema), null, 2)}\n`).toBe(committed);
});
