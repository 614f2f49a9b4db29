import { routes } from '../../src/rest/routes.js';

/** Sample values for path parameters, so every route in the table can be called. */
const SAMPLE: Record<string, string> = { zip: '90210', state: 'CA', city: 'Boston', id: 'vail' };
const QUERY: Record<string, string> = { '/api/resorts/:id/compare': '?with=zermatt', '/api/resorts/:id/history': '?days=7&years=1' };

/** One valid request per documented REST path, straight from the route table. */
export function everyDocumentedPath(): { method: string; path: string }[] {
  return routes.map((r) => ({
    method: r.method ?? 'GET',
    path: r.path.replace(/:(\w+)/g, (_, name: string) => SAMPLE[name]!) + (QUERY[r.path] ?? ''),
  }));
}
