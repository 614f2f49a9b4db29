import { foldAccents } from './fold.js';

/**
 * The key city names are matched by, so that a search forgives the ways people write them: case,
 * accents, punctuation and repeated spaces are ignored, and the usual abbreviations are the words
 * they stand for ("St." / "St" / "Saint", "Ste" / "Sainte", "Ft" / "Fort", "Mt" / "Mount").
 * `/api/city/St.%20Louis?state=MO` finds Saint Louis (63101).
 */
const WORDS: Readonly<Record<string, string>> = { st: 'saint', ste: 'sainte', ft: 'fort', mt: 'mount', pt: 'point' };

/** The words of a name: folded, split on anything that is not a letter or digit. */
const words = (name: string) =>
  foldAccents(name)
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

export function cityKey(name: string): string {
  return words(name)
    .split(' ')
    .map((w) => WORDS[w] ?? w)
    .join(' ');
}

/**
 * The key for a prefix someone is still typing: like `cityKey`, but a last word that could still
 * grow into an abbreviation's long form is left as typed ("sa" may become "saint"; "st" matches
 * both "st…" words and "saint").
 */
export function cityPrefixKeys(prefix: string): string[] {
  const key = cityKey(prefix);
  const rawLast = words(prefix).split(' ').at(-1)!;
  const trailingSpace = /[^a-z0-9]$/i.test(prefix);
  // "st" typed as the last, unfinished word: both "st…" (Sterling) and "saint…" may be meant.
  if (!trailingSpace && WORDS[rawLast]) return [...new Set([key, `${key.slice(0, key.length - WORDS[rawLast]!.length)}${rawLast}`])];
  return [key];
}
