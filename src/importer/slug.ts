import { hash32 } from '../domain/random.js';
import { foldAccents } from '../domain/fold.js';

/** A lowercase ASCII slug: "Val d'Isère" -> "val-d-isere"; names with no Latin letters give "". */
export function slugify(text: string): string {
  return foldAccents(text)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
}

/**
 * A slug no other resort holds: the name, then name + country, name + country + region, and
 * finally a hash of the source id, which is stable for the same area on every import.
 */
export function uniqueSlug(name: string | null, country: string | null, region: string | null, sourceId: string, taken: (slug: string) => boolean): string {
  const base = slugify(name ?? '') || 'ski-area';
  const candidates = [base, `${base}-${slugify(country ?? '')}`, `${base}-${slugify(country ?? '')}-${slugify(region ?? '')}`]
    .map((s) => s.replace(/-+$/g, ''))
    .filter((s, i, all) => s && all.indexOf(s) === i);
  for (const c of candidates) if (!taken(c)) return c;
  return `${base}-${hash32(sourceId).toString(36)}`;
}
