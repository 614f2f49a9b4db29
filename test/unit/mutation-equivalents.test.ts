import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without types.
import { EQUIVALENT } from '../../scripts/mutation-equivalents.mjs';

/**
 * The equivalence rules explain surviving mutants one site each (scripts/mutation-survivors.mjs).
 * A rule that is malformed (two run together when one's closing bracket was lost) or whose code
 * has moved explains nothing, and a mutation run takes hours to show it: checked here, in seconds.
 */
type Rule = [string, number, string, string, string | RegExp, string];
const rules = EQUIVALENT as Rule[];
const sources = new Map<string, string[]>();
const linesOf = (file: string) => {
  let lines = sources.get(file);
  if (!lines) sources.set(file, (lines = readFileSync(file, 'utf8').split('\n')));
  return lines;
};

describe('the equivalent mutants', () => {
  it('each rule is [file, line, code, mutator, replacement, why]', () => {
    const malformed = rules.filter(
      (r) =>
        r.length !== 6 ||
        typeof r[0] !== 'string' ||
        !Number.isInteger(r[1]) ||
        typeof r[2] !== 'string' ||
        !/^[A-Z][A-Za-z]+$/.test(r[3]) ||
        !(typeof r[4] === 'string' || r[4] instanceof RegExp) ||
        typeof r[5] !== 'string' ||
        r[5].length < 10,
    );
    expect(malformed.map((r) => r.slice(0, 3).join(' '))).toEqual([]);
  });

  it('each rule names code that starts on its line of its file', () => {
    const stale = rules.filter(([file, line, code]) => {
      const lines = linesOf(file);
      const [first, ...rest] = code.split('\n');
      const at = lines[line - 1] ?? '';
      if (rest.length === 0) return !at.includes(first!);
      // Code over several lines: its first line ends this line, the rest follow it as they are.
      return (
        !at.endsWith(first!) ||
        lines
          .slice(line, line + rest.length)
          .join('\n')
          .indexOf(rest.join('\n')) !== 0
      );
    });
    expect(stale.map(([file, line, code]) => `${file}:${line} ${code.slice(0, 40)}`)).toEqual([]);
  });
});
