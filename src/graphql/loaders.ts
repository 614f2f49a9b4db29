import DataLoader from 'dataloader';
import type { Repositories } from '../repositories/index.js';
import type { StateRecord, ZipRecord } from '../repositories/zips.js';

export interface StatePageKey {
  stateCode: string;
  limit: number;
  offset: number;
}

export interface Loaders {
  zipByCode: DataLoader<string, ZipRecord | null>;
  stateByCode: DataLoader<string, StateRecord | null>;
  zipsByState: DataLoader<StatePageKey, ZipRecord[], string>;
}

/** Orders rows to match the requested keys, null where a key has no row. */
function byKey<K, V>(keys: readonly K[], rows: V[], keyOf: (row: V) => K): (V | null)[] {
  const map = new Map(rows.map((r) => [keyOf(r), r]));
  return keys.map((k) => map.get(k) ?? null);
}

export function createLoaders(repos: Repositories): Loaders {
  return {
    zipByCode: new DataLoader((zips) => Promise.resolve(byKey(zips, repos.zips.findByZips(zips), (z) => z.zip))),
    stateByCode: new DataLoader((codes) =>
      Promise.resolve(byKey(codes, repos.zips.findStates(codes), (s) => s.stateCode)),
    ),
    // Pages of different states with the same window share one statement; each window is one more.
    zipsByState: new DataLoader(
      async (keys) => {
        const groups = new Map<string, { limit: number; offset: number; codes: string[] }>();
        for (const k of keys) {
          const g = groups.get(`${k.limit}:${k.offset}`) ?? { limit: k.limit, offset: k.offset, codes: [] };
          g.codes.push(k.stateCode);
          groups.set(`${k.limit}:${k.offset}`, g);
        }
        const pages = new Map<string, ZipRecord[]>();
        for (const g of groups.values()) {
          for (const row of repos.zips.pageByStates(g.codes, g.limit, g.offset)) {
            const key = `${row.stateCode}:${g.limit}:${g.offset}`;
            const list = pages.get(key) ?? [];
            list.push(row);
            pages.set(key, list);
          }
        }
        return keys.map((k) => pages.get(`${k.stateCode}:${k.limit}:${k.offset}`) ?? []);
      },
      { cacheKeyFn: (k) => `${k.stateCode}:${k.limit}:${k.offset}` },
    ),
  };
}
