import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApolloClient, HttpLink, InMemoryCache, gql, type DocumentNode } from '@apollo/client';
import type { RunningApp } from '../src/app/start.js';
import { startTestServer, TEST_KEY } from './helpers/server.js';

/**
 * Entities a client cache can trust, proved with Apollo Client's own normalized cache: what comes
 * back from the cache equals what the server sent, and entities reached through different
 * selections merge: after both were written, each selection still reads back whole and right.
 */
let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer();
});
afterAll(() => app.close());

const newClient = () => new ApolloClient({ link: new HttpLink({ uri: `${app.url}/graphql`, headers: { 'x-api-key': TEST_KEY } }), cache: new InMemoryCache() });

/** What the server itself answers to a document (no client, no cache), with Apollo's __typename added. */
async function fromServer(client: ApolloClient, query: DocumentNode): Promise<unknown> {
  const withTypename = client.cache.transformDocument(query);
  const { print } = await import('graphql');
  const res = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY },
    body: JSON.stringify({ query: print(withTypename) }),
  });
  return ((await res.json()) as { data: unknown }).data;
}

describe("Apollo Client's normalized cache", () => {
  it('the control: lengths read through the deprecated Resort.trails(units:) do come back wrong (what length(units:) fixes)', async () => {
    const client = newClient();
    const imperial = gql`{ resort(id: "vail") { id trails(units: IMPERIAL) { id length } } }`;
    const metric = gql`{ resort(id: "vail") { id trails(units: METRIC) { id length } } }`;
    await client.query({ query: imperial });
    await client.query({ query: metric });
    // One Trail entity, one `length`: the feet were overwritten by metres.
    expect(client.readQuery({ query: imperial })).not.toEqual(await fromServer(client, imperial));
  });

  it.each([
    ['a ZIP', gql`{ zip(zip: "90210") { id city county } }`, gql`{ zip(zip: "90210") { id stateCode lat } }`],
    ['a state', gql`{ state(code: "CO") { id stateName } }`, gql`{ state(code: "CO") { id fips zipCount } }`],
    ['a city', gql`{ city(name: "Springfield") { id count } }`, gql`{ city(name: "Springfield") { id zipcodes { id } } }`],
    [
      'a resort’s conditions',
      gql`{ resort(id: "vail") { id conditions { id snowDepthBase } } }`,
      gql`{ resort(id: "vail") { id conditions { id newSnow24h status } } }`,
    ],
    ['a resort’s weather', gql`{ resort(id: "vail") { id weather { id source } } }`, gql`{ resort(id: "vail") { id weather { id current { temperature } } } }`],
    [
      'a ZIP reached from another ZIP',
      gql`{ zip(zip: "80202") { id nearby(limit: 3) { zip details { id city } } } }`,
      gql`{ zip(zip: "80203") { id city county } }`,
    ],
  ])('%s reached through different selections: merged, and each reads back as the server sent it', async (_name, a, b) => {
    const client = newClient();
    await client.query({ query: a });
    await client.query({ query: b });
    for (const query of [a, b]) expect(client.readQuery({ query })).toEqual(await fromServer(client, query));
  });

  it('trail lengths in metres and in feet both come back from the cache as the server sent them', async () => {
    const client = newClient();
    const imperial = gql`{ resort(id: "vail") { id trails { id length(units: IMPERIAL) } } }`;
    const metric = gql`{ resort(id: "vail") { id trails { id length(units: METRIC) } } }`;
    await client.query({ query: imperial });
    await client.query({ query: metric });
    const feet = await fromServer(client, imperial);
    const metres = await fromServer(client, metric);
    expect(client.readQuery({ query: imperial })).toEqual(feet);
    expect(client.readQuery({ query: metric })).toEqual(metres);
    // They do differ: a cache that kept one length per trail would give one of them wrongly.
    expect(feet).not.toEqual(metres);
  });

  it('conditions in two unit systems are two entities: each reads back as sent', async () => {
    const client = newClient();
    const imperial = gql`{ resort(id: "vail") { id conditions(units: IMPERIAL) { id snowDepthBase } } }`;
    const metric = gql`{ resort(id: "vail") { id conditions(units: METRIC) { id snowDepthBase } } }`;
    await client.query({ query: imperial });
    await client.query({ query: metric });
    expect(client.readQuery({ query: imperial })).toEqual(await fromServer(client, imperial));
    expect(client.readQuery({ query: metric })).toEqual(await fromServer(client, metric));
  });
});
