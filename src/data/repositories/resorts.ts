import type { Db } from '../db/open.js';
import type { InventorySource, ResortFacts } from '../../domain/resort.js';
import { RESORTS } from '../db/tables.js';

export interface ResortRecord extends ResortFacts {
  inventorySource: InventorySource;
}

export interface ResortFilter {
  q?: string;
  country?: string;
  region?: string;
  continent?: string;
}

const COLUMNS = `${RESORTS.select()}, inventory_source AS inventorySource`;

// Every filter is optional: a NULL parameter switches its condition off, so one statement serves all.
const WHERE = `WHERE (:q IS NULL OR name LIKE '%' || :q || '%' ESCAPE '\\' COLLATE NOCASE OR id LIKE '%' || :q || '%' ESCAPE '\\')
  AND (:country IS NULL OR country_code = :country)
  AND (:region IS NULL OR region = :region COLLATE NOCASE)
  AND (:continent IS NULL OR continent = :continent COLLATE NOCASE)`;

type FilterParams = { q: string | null; country: string | null; region: string | null; continent: string | null };

/** LIKE treats % and _ as wildcards; a name search means them literally. */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export class ResortRepository {
  private readonly byIds;
  private readonly page;
  private readonly count;
  private readonly allStmt;

  constructor(db: Db) {
    this.byIds = db.prepare<[string], ResortRecord>(`SELECT ${COLUMNS} FROM resorts WHERE id IN (SELECT value FROM json_each(?))`);
    this.page = db.prepare<FilterParams & { limit: number; offset: number }, ResortRecord>(
      `SELECT ${COLUMNS} FROM resorts ${WHERE} ORDER BY name COLLATE NOCASE, id LIMIT :limit OFFSET :offset`,
    );
    this.count = db.prepare<FilterParams, { n: number }>(`SELECT count(*) AS n FROM resorts ${WHERE}`);
    this.allStmt = db.prepare<[], ResortRecord>(`SELECT ${COLUMNS} FROM resorts ORDER BY id`);
  }

  findByIds(ids: readonly string[]): ResortRecord[] {
    return this.byIds.all(JSON.stringify(ids));
  }

  search(filter: ResortFilter, limit: number, offset: number): { total: number; resorts: ResortRecord[] } {
    const params: FilterParams = {
      q: filter.q ? escapeLike(filter.q) : null,
      country: filter.country ?? null,
      region: filter.region ?? null,
      continent: filter.continent ?? null,
    };
    return { total: this.count.get(params)!.n, resorts: this.page.all({ ...params, limit, offset }) };
  }

  all(): ResortRecord[] {
    return this.allStmt.all();
  }
}
