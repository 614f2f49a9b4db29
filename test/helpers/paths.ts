import { routes } from '../../src/rest/routes.js';

/** Sample values for path parameters, so every route in the table can be called. */
const SAMPLE: Record<string, string> = { zip: '90210', state: 'CA', city: 'Boston', id: 'vail' };
const QUERY: Record<string, string> = { '/api/resorts/:id/compare': '?with=zermatt' };

/** One valid URL per documented REST path, straight from the route table. */
export function everyDocumentedPath(): string[] {
  return routes.map((r) => r.path.replace(/:(\w+)/g, (_, name: string) => SAMPLE[name]!) + (QUERY[r.path] ?? ''));
}
