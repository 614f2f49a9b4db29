/**
 * A typed GraphQL client in a few lines: the query below is typed by graphql-codegen's client
 * preset from schema/schema.graphql (`npm run codegen` writes ./gql/), so `result.zip.city` and
 * `resort.conditions.snowDepthBase` are checked by the compiler, and a field the schema does not
 * have fails `npm test` (it type-checks this folder). No GraphQL library at run time: the
 * document is a typed string, sent with fetch (by its hash when the server knows it).
 *
 *   API_KEY=szg_… npm run example -- 81657
 */
import { graphql } from './gql/index.js';
import type { TypedDocumentString } from './gql/graphql.js';

const NearbyResorts = graphql(`
  query NearbyResorts($zip: String!, $radiusMiles: Float) {
    zip(zip: $zip) {
      city
      stateCode
      nearbyResorts(radiusMiles: $radiusMiles, limit: 5) {
        distanceMiles
        resort {
          name
          conditions(units: IMPERIAL) {
            date
            snowDepthBase
            newSnow24h
            units {
              depth
            }
          }
        }
      }
    }
  }
`);

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/**
 * Sends a typed document and returns its typed data (or throws with the server's message). The
 * document goes by its hash (codegen's persisted documents: gql/persisted-documents.json) as a GET,
 * which a browser or proxy may keep and revalidate; a server that does not know the hash (started
 * without that manifest in GRAPHQL_TRUSTED_DOCUMENTS) gets the text once over POST.
 */
async function request<R, V>(url: string, apiKey: string, document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  const hash = document.__meta__?.hash as string | undefined;
  let res: Response | null = null;
  let body: GraphQLResponse<R> | null = null;
  if (hash) {
    const search = new URLSearchParams({ documentId: hash, variables: JSON.stringify(variables) });
    res = await fetch(`${url}?${search}`, { headers: { 'x-api-key': apiKey } });
    body = (await res.json()) as GraphQLResponse<R>;
  }
  if (!body || body.errors?.some((e) => e.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND')) {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ query: document.toString(), variables }),
    });
    body = (await res.json()) as GraphQLResponse<R>;
  }
  if (body.errors?.length) throw new Error(body.errors.map((e) => `${e.extensions?.code ?? 'ERROR'}: ${e.message}`).join('; '));
  if (!body.data) throw new Error(`HTTP ${res!.status} without data`);
  return body.data;
}

const url = process.env.API_URL ?? 'http://127.0.0.1:4000/graphql';
const apiKey = process.env.API_KEY;
if (!apiKey) {
  console.error('Set API_KEY (the server prints a first key when it starts on a database without keys).');
  process.exit(2);
}
const zip = process.argv[2] ?? '81657';

try {
  const data = await request(url, apiKey, NearbyResorts, { zip, radiusMiles: 60 });
  if (!data.zip) throw new Error(`no ZIP ${zip}`);
  console.log(`Ski resorts within 60 miles of ${zip} (${data.zip.city}, ${data.zip.stateCode}):`);
  for (const { distanceMiles, resort } of data.zip.nearbyResorts ?? []) {
    const snow = resort.conditions;
    console.log(
      `  ${resort.name.padEnd(28)} ${distanceMiles.toFixed(1).padStart(5)} mi  base ${snow.snowDepthBase} ${snow.units.depth}, new ${snow.newSnow24h} ${snow.units.depth} (${snow.date})`,
    );
  }
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
