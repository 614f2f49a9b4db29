import { z } from 'zod';

/**
 * A resort's descriptive facts: stored as they are, read from the catalogue as they are, and
 * answered as they are by GraphQL's Resort and REST's resort detail. Each is declared once, here;
 * the table's column and DDL (db/tables.ts, db/schema-sql.ts), the catalogue's check
 * (db/sources/resort-source.ts), imports, the GraphQL field, the documented response and the
 * REST shape are derived from this list. Adding one: a line here, its values in
 * data/resorts.json, its name in the REST operation (src/transports/rest/operations/resort.graphql), and —
 * when an import source has it — its mapping in src/importer/formats.ts. Facts the code reasons
 * about (elevations, coordinates, counts) are declared by hand in ResortFacts instead.
 *
 * Every such fact may be unknown (NULL): a catalogue entry or an imported area can lack it.
 */
export const RESORT_FIELDS = {
  website: { column: 'website', type: 'String', description: 'The resort’s own website, when known.', check: z.url() },
} as const satisfies Record<string, ResortField>;

interface ResortField {
  /** The SQL column in `resorts`. */
  column: string;
  /** The GraphQL scalar; the SQL column type follows from it. */
  type: keyof typeof SQL_TYPES;
  description: string;
  /** What a catalogue or imported value must satisfy. */
  check: z.ZodType<string | number>;
}

export const SQL_TYPES = { String: 'TEXT', Int: 'INTEGER', Float: 'REAL' } as const;

export type ResortFieldName = keyof typeof RESORT_FIELDS;
export const RESORT_FIELD_NAMES = Object.keys(RESORT_FIELDS) as ResortFieldName[];

/** The descriptive facts as the code holds them; absent means unknown, as NULL does. */
export type DescriptiveFacts = { [F in ResortFieldName]?: z.infer<(typeof RESORT_FIELDS)[F]['check']> | null };

/** Each descriptive fact of `source`, unknown ones as null (a resort's answer names every field). */
export function descriptiveFacts(source: DescriptiveFacts): { [F in ResortFieldName]: NonNullable<DescriptiveFacts[F]> | null } {
  const out = {} as Record<string, unknown>;
  for (const name of RESORT_FIELD_NAMES) out[name] = source[name] ?? null;
  return out as { [F in ResortFieldName]: NonNullable<DescriptiveFacts[F]> | null };
}
