import { parse } from 'graphql';
import { RESORT_BOUNDS, resortId } from '../../validation/resort-params.js';
import type { McpTool } from './tools.js';

/** What a resource URI names: a document of the service, or one view of one resort. */
export type ResourceTarget = { kind: 'document'; uri: string } | { kind: 'resort'; uri: string; resortId: string; view: ResortView };

/** A resort's views as resources: which tool's operation reads each (the tool's answer under `resort`). */
export const RESORT_VIEWS = {
  conditions: { tool: 'resort_conditions', title: 'Conditions', description: "The resort's snow report now (as the resort_conditions tool answers it)." },
  weather: {
    tool: 'resort_forecast',
    title: 'Weather',
    description: "The resort's current weather and 7-day forecast (as the resort_forecast tool answers it).",
  },
} as const satisfies Record<string, { tool: string; title: string; description: string }>;
export type ResortView = keyof typeof RESORT_VIEWS;

export const DOCUMENTS = {
  'gateway://schema.graphql': {
    name: 'graphql-schema',
    title: 'GraphQL schema',
    mimeType: 'application/graphql',
    description: 'The GraphQL API’s schema (SDL).',
  },
  'gateway://openapi.json': { name: 'openapi', title: 'OpenAPI document', mimeType: 'application/json', description: 'The REST API’s OpenAPI 3.1 document.' },
} as const;
export type DocumentUri = keyof typeof DOCUMENTS;

/** resort://{id}/conditions and resort://{id}/weather (the id is checked as every resort id is). */
const RESORT_URI = /^resort:\/\/([^/]{1,100})\/(conditions|weather)$/;

export const templates = () =>
  (Object.keys(RESORT_VIEWS) as ResortView[]).map((view) => ({
    uriTemplate: `resort://{id}/${view}`,
    name: `resort-${view}`,
    title: `Resort ${RESORT_VIEWS[view].title.toLowerCase()}`,
    description: `${RESORT_VIEWS[view].description} Subscribe to be told when it changes (a sync run on any replica, the hour, lifts). {id} is a resort id such as vail.`,
    mimeType: 'application/json',
  }));

export const documentList = () => (Object.keys(DOCUMENTS) as DocumentUri[]).map((uri) => ({ uri, ...DOCUMENTS[uri] }));

/** What a URI names (a resort's with its URI as written canonically: its id in lower case), or null when it names nothing here. */
export function targetOf(uri: string): ResourceTarget | null {
  if (Object.hasOwn(DOCUMENTS, uri)) return { kind: 'document', uri };
  const m = RESORT_URI.exec(uri);
  const id = m ? resortId.safeParse(m[1]) : null;
  if (!m || !id?.success) return null;
  return { kind: 'resort', uri: `resort://${id.data}/${m[2]}`, resortId: id.data, view: m[2] as ResortView };
}

/** The tool whose operation reads a resort's view. */
export const readerOf = (tools: readonly McpTool[], view: ResortView): McpTool => {
  const tool = tools.find((t) => t.name === RESORT_VIEWS[view].tool);
  if (!tool) throw new Error(`the ${RESORT_VIEWS[view].tool} operation reads resort://{id}/${view}: it must exist`);
  return tool;
};

/** Resorts one session may watch at once: as many as one conditionsChanged subscription takes. */
export const MAX_WATCHED_RESORTS = RESORT_BOUNDS.liveResortIds.max;

/** The subscription that tells a session its watched resorts changed: the same feed as conditionsChanged. */
export const WATCH = parse('subscription McpResourceUpdates($ids: [ID!]!) { conditionsChanged(resortIds: $ids) { resortId reason } }');
