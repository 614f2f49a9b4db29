import { REPLACED } from '../data/repositories/keys.js';

/** The longest key name `npm run keys -- create` takes. */
export const MAX_KEY_NAME = 100;

/**
 * What a key's name (and plan) may hold: letters, marks, digits, punctuation, symbols and the
 * plain space. Nothing a terminal would act on (control characters, so no ANSI escape) and
 * nothing that hides or reorders text (format characters such as a right-to-left override, line
 * separators, unassigned code points), and nothing that prints as nothing: the code points
 * Unicode says to ignore when they cannot be shown (Hangul fillers, variation selectors, the
 * combining grapheme joiner), the blank braille pattern, Khitan's filler, the null notehead, and
 * U+FFFD (what bytes that were not UTF-8 became). `list` prints them.
 */
const NOT_PRINTABLE = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]|[\p{Default_Ignorable_Code_Point}\u2800\u{16FE4}\u{1D159}\uFFFD]/u;

/** A combining mark with no letter or digit under it (first, or after a space or punctuation): it prints as nothing. */
const LOOSE_MARK = /(^|[^\p{L}\p{N}\p{M}])\p{M}/u;

/** Five marks on one letter, counted decomposed (NFC folds some into the letter: é is e and one): a smear over the name. */
const MARK_PILE = /\p{M}{5}/u;

/** A code point as people write it: U+001B. */
const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why a value cannot be a key's name or plan (a sentence naming the option), or null when it can. */
export function keyTextProblem(option: '--name' | '--plan', value: string): string | null {
  // Characters as people count them (code points): an emoji is one, not two UTF-16 units.
  const chars = [...value];
  if (chars.length > MAX_KEY_NAME) return `${option} must be at most ${MAX_KEY_NAME} characters; it has ${chars.length}`;
  const at = chars.findIndex((ch) => NOT_PRINTABLE.test(ch));
  if (at >= 0)
    return (
      `${option} may hold visible, printable characters only (letters, digits, punctuation, symbols and spaces); ` +
      `${shownName(value)} has ${codePoint(chars[at]!)} at character ${at + 1}`
    );
  const loose = LOOSE_MARK.exec(value);
  if (loose) {
    const at = [...value.slice(0, loose.index + loose[0].length)].length;
    return `${option} may hold combining marks only on a letter or digit, at most 4 on one; ${shownName(value)} has ${codePoint([...loose[0]].at(-1)!)} at character ${at}`;
  }
  if (MARK_PILE.test(value.normalize('NFD')))
    return `${option} may hold combining marks only on a letter or digit, at most 4 on one; ${shownName(value)} has more on one`;
  if (value.trim() === '') return `${option} must not be empty or only spaces`;
  if (value.startsWith(' ') || value.endsWith(' '))
    return `${option} must not start or end with a space (they are not trimmed: the name would not be the one you type)`;
  if (value.toLowerCase().includes(REPLACED)) return `${option} may not contain "${REPLACED}": a key replaced with --replace is listed under such a name`;
  return null;
}

/**
 * Text as it is safe to print: each character that is not printable written as its escape
 * (\u{1b}), so a name stored before names were checked, or typed as an argument, cannot act on
 * the terminal.
 */
export function escaped(text: string): string {
  return [...text].map((ch) => (NOT_PRINTABLE.test(ch) ? `\\u{${ch.codePointAt(0)!.toString(16)}}` : ch)).join('');
}

/** A name quoted, as messages show it. */
export const shownName = (name: string) => `"${escaped(name)}"`;
