import { describe, expect, it } from 'vitest';
import { escaped, keyTextProblem, shownName } from '../../src/auth/key-name.js';

/** What a key's name may hold, and how one is printed (src/auth/key-name.ts). */
describe('key names', () => {
  it('letters of any script, digits, punctuation, symbols and spaces are names; up to 100 characters', () => {
    for (const name of ['my-app', 'Zermatt café', 'team 2 (ops)', '雪 ⛷', 'a'.repeat(100)]) expect(keyTextProblem('--name', name)).toBeNull();
    expect(keyTextProblem('--name', 'a'.repeat(101))).toBe('--name must be at most 100 characters; it has 101');
    // Characters, not UTF-16 units: 100 snowboarders (200 units) are a name.
    expect(keyTextProblem('--name', '🏂'.repeat(100))).toBeNull();
  });

  it('a control character, a line break, a format character or an unassigned code point is refused, named by code point and place', () => {
    expect(keyTextProblem('--name', 'red\u001b[31m')).toBe(
      '--name may hold visible, printable characters only (letters, digits, punctuation, symbols and spaces); "red\\u{1b}[31m" has U+001B at character 4',
    );
    expect(keyTextProblem('--plan', 'p\u202e')).toMatch(/^--plan .* has U\+202E at character 2$/);
    expect(keyTextProblem('--name', 'a\tb')).toMatch(/U\+0009 at character 2$/);
    expect(keyTextProblem('--name', 'a\u2028')).toMatch(/U\+2028 at character 2$/);
    expect(keyTextProblem('--name', 'a\u00a0b')).toMatch(/U\+00A0 at character 2$/);
    expect(keyTextProblem('--name', '\u{e0001}x')).toMatch(/U\+E0001 at character 1$/);
    expect(keyTextProblem('--name', 'x\u0378')).toMatch(/U\+0378 at character 2$/);
  });

  it('a character that prints as nothing is refused (fillers, variation selectors, joiners, the blank braille pattern); ~replaced- is reserved', () => {
    for (const cp of [0x3164, 0x115f, 0xffa0, 0xfe0f, 0x034f, 0x2800, 0x180e]) {
      expect(keyTextProblem('--name', `a${String.fromCodePoint(cp)}`)).toMatch(
        new RegExp(`U\\+${cp.toString(16).toUpperCase().padStart(4, '0')} at character 2$`),
      );
    }
    expect(escaped('a\u3164b')).toBe('a\\u{3164}b');
    expect(keyTextProblem('--name', 'beta~replaced-3')).toMatch(/^--name may not contain "~replaced-"/);
    expect(keyTextProblem('--name', 'beta~Replaced-3')).toMatch(/^--name may not contain "~replaced-"/);
    // Marks on a letter or digit, up to four: Vietnamese and Indic names stay names.
    expect(keyTextProblem('--name', 'Tr\u01b0\u0301\u0323ng')).toBeNull();
    expect(keyTextProblem('--name', '\u0301x')).toMatch(/U\+0301 at character 1$/);
    expect(keyTextProblem('--name', 'x -\u0301')).toMatch(/U\+0301 at character 4$/);
    expect(keyTextProblem('--name', `a${'\u0301'.repeat(5)}`)).toMatch(/has more on one$/);
    // Counted decomposed: NFC folds the first into é, and four more still make five.
    expect(keyTextProblem('--name', `e${'\u0301'.repeat(5)}`.normalize('NFC'))).toMatch(/has more on one$/);
    expect(keyTextProblem('--name', ' x')).toMatch(/^--name must not start or end with a space/);
    expect(keyTextProblem('--plan', '  ')).toBe('--plan must not be empty or only spaces');
  });

  it('prints what is not printable as an escape, and leaves the rest as it is', () => {
    expect(escaped('old\u001b[2Jname\u0000')).toBe('old\\u{1b}[2Jname\\u{0}');
    expect(escaped('café ⛷')).toBe('café ⛷');
    expect(shownName('a\nb')).toBe('"a\\u{a}b"');
  });
});
