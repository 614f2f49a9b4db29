import { REPLACED } from '../data/repositories/keys.js';

/** The longest key name `npm run keys -- create` takes. */
export const MAX_KEY_NAME = 100;

/**
 * What a key's name (and plan) may hold: letters, marks, digits, punctuation, symbols and the
 * plain space. Nothing a terminal would act on (control characters, so no ANSI escape) and
 * nothing that hides or reorders text (format characters such as a right-to-left override, line
 * separators, unassigned code points), and nothing that prints as nothing: the code points
 * Unicode says to ignore when they cannot be shown (Hangul fillers, variation selectors, the
 * combining grapheme joiner) and the blank braille pattern. `list` prints them.
 */
const NOT_PRINTABLE = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]|[\p{Default_Ignorable_Code_Point}\u2800]/u;

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
  if (value.includes(REPLACED)) return `${option} may not contain "${REPLACED}": a key replaced with --replace is listed under such a name`;
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
