/**
 * How deep JSON from a client may nest: a GraphQL request's body, its variables and its extensions
 * (GET parameters included). Our deepest input is three levels inside a request body; 32 leaves
 * room for any honest client while keeping every later walk over the data (variable coercion,
 * the cost analysis, Yoga's parsers) far from the stack's limit. Checked before anything parses
 * or walks the text.
 */
export const MAX_JSON_DEPTH = 32;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text nests objects and arrays deeper than `max`, by one pass over its bytes
 * (strings and their escapes skipped), without parsing it: constant stack, linear time. Text that
 * is not JSON is the parser's to refuse; this only answers for nesting.
 */
export function nestsDeeperThan(text: Buffer | string, max: number = MAX_JSON_DEPTH): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) depth--;
  }
  return false;
}
