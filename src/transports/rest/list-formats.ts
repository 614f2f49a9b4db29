import type { z } from 'zod';
import { JSON_TYPE } from '../../http/headers.js';

/**
 * The forms a REST list is answered in: JSON (the documented body, the default), CSV (RFC 4180:
 * a header row, CRLF line ends, fields quoted where they hold a comma, a quote or a line break,
 * UTF-8 without a byte-order mark; a text cell a spreadsheet would run as a formula starts with
 * `'`) and NDJSON (one JSON object per line). CSV and NDJSON carry the list's items only, each
 * nested object flattened into dotted columns (`conditions.snowDepthBase`) for CSV and kept whole
 * for NDJSON; the page's own fields (total, limit, offset) are the paging the request asked for.
 */
export const LIST_FORMATS = ['json', 'csv', 'ndjson'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

export const LIST_MEDIA_TYPES: Record<ListFormat, string> = {
  json: JSON_TYPE,
  csv: 'text/csv; charset=utf-8; header=present',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** What a list offers, as a 406 names it. */
export const OFFERED = 'application/json, text/csv or application/x-ndjson';

const BY_MEDIA_TYPE: Record<string, ListFormat> = {
  'application/json': 'json',
  'application/*': 'json',
  '*/*': 'json',
  'text/csv': 'csv',
  'text/*': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
};

/**
 * The form an Accept header asks for, ranked by q-value then order; JSON when it names none (or
 * is absent); null when it names only forms a list does not have (a 406).
 */
export function negotiateList(accept: string | undefined): ListFormat | null {
  if (!accept) return 'json';
  let best: { format: ListFormat; q: number } | null = null;
  for (const entry of accept.split(',')) {
    const [type, ...params] = entry.split(';');
    const format = BY_MEDIA_TYPE[type!.trim().toLowerCase()];
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (format && q > 0 && (!best || q > best.q)) best = { format, q };
  }
  return best?.format ?? null;
}

/** A column of the CSV form: its dotted name and where its value is in an item. */
export interface Column {
  name: string;
  path: readonly string[];
}

/** The columns of a list's items, from the documented item schema: nested objects flattened, in declaration order. */
export function columnsOf(item: z.ZodType): Column[] {
  const out: Column[] = [];
  const walk = (schema: z.ZodType, path: string[]) => {
    const object = unwrapped(schema) as { shape?: Record<string, z.ZodType> };
    if (!object.shape) {
      out.push({ name: path.join('.'), path });
      return;
    }
    for (const [name, field] of Object.entries(object.shape)) walk(field, [...path, name]);
  };
  walk(item, []);
  return out;
}

/** A schema without its optional, nullable and default wrappers. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let s = schema as z.ZodType & { unwrap?: () => z.ZodType; def?: { innerType?: z.ZodType } };
  for (;;) {
    const inner = typeof s.unwrap === 'function' ? s.unwrap() : s.def?.innerType;
    if (!inner) return s;
    s = inner as typeof s;
  }
}

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * Whether a spreadsheet would run a text cell as a formula: it starts with `=`, `+`, `-`, `@`, a
 * tab or a carriage return (OWASP, CSV injection). Imported names come from OpenStreetMap, which
 * anyone can edit. Numbers are not text: a negative number stays a number.
 */
function formulaLike(text: string): boolean {
  const c = text.charCodeAt(0);
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13;
}

function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  // Such a text cell gets a leading `'`, as OWASP advises: shown as text, never evaluated.
  const text = typeof value === 'string' ? (formulaLike(value) ? `'${value}` : value) : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function at(item: unknown, path: readonly string[]): unknown {
  let v = item;
  for (const key of path) v = v === null || v === undefined ? undefined : (v as Record<string, unknown>)[key];
  return v;
}

/** CSV's header row (CRLF-ended). */
export function csvHeader(columns: readonly Column[]): string {
  return `${columns.map((c) => field(c.name)).join(',')}\r\n`;
}

/**
 * Items `from` to `to` as CSV rows, each CRLF-ended, in one string. Joined from arrays, not
 * appended piece by piece: appending makes two intermediate strings per field, several times the
 * text's own size for a page of a thousand ZIPs.
 */
export function csvRows(items: readonly unknown[], columns: readonly Column[], from = 0, to = items.length): string {
  const rows: string[] = [];
  const fields: string[] = new Array(columns.length);
  for (let r = from, end = Math.min(to, items.length); r < end; r++) {
    for (let i = 0; i < columns.length; i++) fields[i] = field(at(items[r], columns[i]!.path));
    rows.push(fields.join(','));
  }
  return rows.length === 0 ? '' : `${rows.join('\r\n')}\r\n`;
}

/** Items `from` to `to` (by default all of them) as NDJSON, one per line, in one string (joined, as csvRows). */
export function ndjsonRows(items: readonly unknown[], from = 0, to = items.length): string {
  const lines: string[] = [];
  for (let r = from, end = Math.min(to, items.length); r < end; r++) lines.push(JSON.stringify(items[r]));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** A list as CSV: the header row, then one row per item (for examples; answers stream, list-stream.ts). */
export function toCsv(items: readonly unknown[], columns: readonly Column[]): string {
  return csvHeader(columns) + csvRows(items, columns);
}
