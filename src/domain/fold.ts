import { BoundedMemo } from './bounded-memo.js';

/** Lower case without accents ("Cañon" -> "canon"): the form names are compared and slugged in. */
export function foldAccents(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

// Resort names are a few thousand; the bound only stops a caller with endless new names.
const foldedNames = new BoundedMemo<string, string>(20_000);

/**
 * The order names are listed in: folded (accents and case aside) first, then as written. Not
 * localeCompare: its collator costs a process ICU's data (BENCHMARKS.md, design figures: ICU), for the same order on names.
 */
export function compareNames(a: string, b: string): number {
  const x = folded(a);
  const y = folded(b);
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function folded(name: string): string {
  let f = foldedNames.get(name);
  if (f === undefined) {
    f = foldAccents(name);
    foldedNames.set(name, f);
  }
  return f;
}
