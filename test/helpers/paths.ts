import { routes } from '../../src/transports/rest/routes.js';
import { PARAMETER_EXAMPLES } from '../../src/transports/rest/examples.js';

/** Path parameters from the examples /openapi.json shows, so every route in the table can be called. */
const SAMPLE = PARAMETER_EXAMPLES;
/** Required query parameters (compare's `with`, the codes of a bulk lookup, a point), and a small history (it is costed per point). */
const QUERY: Record<string, string> = {
  '/api/resorts/:id/compare': `?with=${PARAMETER_EXAMPLES.with}`,
  '/api/resorts/:id/history': '?days=7&years=1',
  '/api/zips': `?codes=${PARAMETER_EXAMPLES.codes}`,
  '/api/zips/near': `?lat=${PARAMETER_EXAMPLES.lat}&lng=${PARAMETER_EXAMPLES.lng}`,
};

/** One valid request per documented REST path, straight from the route table. */
export function everyDocumentedPath(): { method: string; path: string }[] {
  return routes.map((r) => ({
    method: r.method ?? 'GET',
    path: r.path.replace(/:(\w+)/g, (_, name: string) => String(SAMPLE[name]!)) + (QUERY[r.path] ?? ''),
  }));
}
