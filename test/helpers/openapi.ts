import { expect } from 'vitest';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import type { HttpResult } from './server.js';

type Json = Record<string, any>;

/**
 * An independent OpenAPI validator (openapi-backend: its own router, its own Ajv schemas) over the
 * server's /openapi.json, for both documented servers (`/` and `/v1`). It decides, for a real
 * request and its real answer, which operation the document says it is, whether the document
 * allows that request, and whether the answer matches what the document says of its status.
 */
export async function openApiValidator(doc: Json) {
  const backends = await Promise.all(
    ['/', '/v1'].map(async (apiRoot) => {
      // `quick`: openapi-backend checks documents against the OpenAPI 3.0 schema only; the
      // document's own validity (3.1) is checked by a validator made for it (openapi.test.ts).
      const api = new OpenAPIBackend({
        definition: structuredClone(doc) as never,
        apiRoot,
        strict: true,
        quick: true,
        validate: true,
        ajvOpts: { strict: false } as never,
      });
      await api.init();
      return { apiRoot, api };
    }),
  );

  function operationFor(method: string, url: string) {
    const [path, query = ''] = url.split('?');
    const { api } = backends.find((b) => (b.apiRoot === '/v1' ? path!.startsWith('/v1/') : !path!.startsWith('/v1/')))!;
    const req = { method, path: path!, query, headers: { 'x-api-key': 'k' } };
    const operation = api.matchOperation(req) as Operation | undefined;
    expect(operation, `${method} ${path} is an operation of the document`).toBeDefined();
    return { api, req, operation: operation! };
  }

  return {
    /** Whether the document accepts this request (its parameters' types, enums and bounds). */
    requestErrors(method: string, url: string): unknown[] {
      const { api, req, operation } = operationFor(method, url);
      return api.validateRequest(req, operation.operationId!).errors ?? [];
    },
    /** Asserts the answer is documented for its status and matches its schema. */
    expectConforms(method: string, url: string, r: HttpResult): void {
      const { api, operation } = operationFor(method, url);
      const documented = (operation.responses as Json)[String(r.status)];
      expect(documented, `${method} ${url}: status ${r.status} is documented for ${operation.operationId}`).toBeDefined();
      const media = r.contentType.split(';')[0]!;
      if (r.status !== 304 && (r.body !== '' || media))
        expect(Object.keys(documented.content ?? {}), `${operation.operationId} ${r.status} documents ${media}`).toContain(media);
      const result = api.validateResponse(r.body, operation.operationId!, r.status);
      expect(result.errors ?? [], `${method} ${url} ${r.status}`).toEqual([]);
    },
  };
}
