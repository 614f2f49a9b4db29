/** The longest key name `npm run keys -- create` takes. */
export const MAX_KEY_NAME = 100;

/**
 * What a key's name (and plan) may hold: letters, marks, digits, punctuation, symbols and the
 * plain space. Nothing a terminal would act on (control characters, so no ANSI escape) and
 * nothing that hides or reorders text (format characters such as a right-to-left override, line
 * separators, unassigned code points): `list` prints them.
 */
const NOT_PRINTABLE = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

/** A code point as people write it: U+001B. */
const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why a value cannot be a key's name or plan (a sentence naming the option), or null when it can. */
export function keyTextProblem(option: '--name' | '--plan', value: string): string | null {
  if (value.length > MAX_KEY_NAME) return `${option} must be at most ${MAX_KEY_NAME} characters`;
  const chars = [...value];
  const at = chars.findIndex((ch) => NOT_PRINTABLE.test(ch));
  if (at < 0) return null;
  return (
    `${option} may hold printable characters only (letters, digits, punctuation, symbols and spaces); ` +
    `${shownName(value)} has ${codePoint(chars[at]!)} at character ${at + 1}`
  );
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
