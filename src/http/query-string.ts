/**
 * A query string's parameters, read strictly. URLSearchParams reads a broken escape (`q=%`,
 * `q=%FF`, a lone surrogate `%ED%A0%80`) as something else (itself, or U+FFFD), so a client's
 * mistake became a search for a different word; a path segment with the same bytes is refused.
 * Here both are refused alike: the first parameter that is not valid percent-encoded UTF-8.
 */
export type QueryRead = { ok: true; params: URLSearchParams } | { ok: false; name: string; value: string };

const decodes = (s: string): boolean => {
  try {
    decodeURIComponent(s.replaceAll('+', ' '));
    return true;
  } catch {
    return false;
  }
};

export function readQuery(query: string): QueryRead {
  // Without a % there is nothing to decode, and nothing to get wrong.
  if (query.includes('%')) {
    for (const pair of query.split('&')) {
      if (!pair.includes('%')) continue;
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      const value = eq < 0 ? '' : pair.slice(eq + 1);
      if (decodes(key) && decodes(value)) continue;
      return { ok: false, name: decodes(key) ? decodeURIComponent(key.replaceAll('+', ' ')) : key, value };
    }
  }
  return { ok: true, params: new URLSearchParams(query) };
}

/** The bound a refused parameter names, as a problem's `errors` item. */
export const PERCENT_ENCODING = 'valid percent-encoded UTF-8';
