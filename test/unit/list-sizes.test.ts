import { afterAll, describe, expect, it } from 'vitest';
import type { GraphQLObjectType } from 'graphql';
import { openDatabase } from '../../src/data/db/open.js';
import { schema } from '../../src/graphql/schema.js';
import { privateDatabase } from '../helpers/server.js';

/**
 * A list whose cost is a fixed size (no argument limits it) is costed at the most the data holds:
 * below it, a query over the largest would run past the cost limit it was costed within.
 */
const db = openDatabase(privateDatabase('gateway-list-sizes-'));
afterAll(() => db.close());

const multiplierOf = (type: string, field: string) =>
  ((schema.getType(type) as GraphQLObjectType).getFields()[field]!.extensions as { complexity: { multiplier: number } }).complexity.multiplier;
const most = (sql: string) => (db.prepare(sql).get() as { n: number }).n;

describe('fixed list sizes in the cost analysis', () => {
  it('a resort’s trails and lifts: at least the most any resort has', () => {
    expect(multiplierOf('Resort', 'trails')).toBeGreaterThanOrEqual(most('SELECT count(*) AS n FROM trails GROUP BY resort_id ORDER BY n DESC LIMIT 1'));
    expect(multiplierOf('Resort', 'lifts')).toBeGreaterThanOrEqual(most('SELECT count(*) AS n FROM lifts GROUP BY resort_id ORDER BY n DESC LIMIT 1'));
  });

  it('a city’s ZIPs: at least the most one city name has, over every state', () => {
    expect(multiplierOf('City', 'zipcodes')).toBeGreaterThanOrEqual(most('SELECT count(*) AS n FROM zips GROUP BY city ORDER BY n DESC LIMIT 1'));
  });
});
