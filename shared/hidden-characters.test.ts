import { describe, expect, it } from 'vitest';
import { describeHiddenSegment, findHiddenCharacters, hasHiddenCharacters, splitAtHiddenCharacters } from './hidden-characters';

const labels = (text: string, options?: Parameters<typeof findHiddenCharacters>[1]) => findHiddenCharacters(text, options).map((character) => character.label);

// The "commenting out" example of Trojan Source (trojansource.codes): it reads as a comment, and the
// admin-only line below it runs for everyone.
const trojan = '/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only */';

describe('hidden characters in a line', () => {
  it('finds the bidirectional controls of a Trojan Source line, where they are and what they are', () => {
    const found = findHiddenCharacters(trojan);
    expect(found.map((character) => [character.label, character.name, character.abbreviation, character.kind, character.index])).toEqual([
      ['U+202E', 'RIGHT-TO-LEFT OVERRIDE', 'RLO', 'bidi', 2],
      ['U+2066', 'LEFT-TO-RIGHT ISOLATE', 'LRI', 'bidi', 6],
      ['U+2069', 'POP DIRECTIONAL ISOLATE', 'PDI', 'bidi', 19],
      ['U+2066', 'LEFT-TO-RIGHT ISOLATE', 'LRI', 'bidi', 21],
    ]);
    expect(found.every((character) => character.warns)).toBe(true);
  });

  it('finds every bidirectional control and mark', () => {
    const bidi = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c];
    const found = findHiddenCharacters(bidi.map((codePoint) => `x${String.fromCodePoint(codePoint)}`).join(''));
    expect(found.map((character) => character.codePoint)).toEqual(bidi);
    expect(new Set(found.map((character) => character.kind))).toEqual(new Set(['bidi']));
  });

  it('finds zero-width and other invisible format characters', () => {
    const invisible = [0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x00ad, 0x180e, 0x3164, 0x034f];
    const found = findHiddenCharacters(invisible.map((codePoint) => `a${String.fromCodePoint(codePoint)}`).join(''));
    expect(found.map((character) => character.codePoint)).toEqual(invisible);
    expect(labels('const isAdmin\u200b = true')).toEqual(['U+200B']);
    expect(findHiddenCharacters('x\u200by')[0]).toMatchObject({ name: 'ZERO WIDTH SPACE', abbreviation: 'ZWSP', kind: 'invisible' });
  });

  it('finds line and paragraph separators', () => {
    expect(findHiddenCharacters('a\u2028b\u2029c').map((character) => [character.label, character.kind])).toEqual([
      ['U+2028', 'separator'],
      ['U+2029', 'separator'],
    ]);
  });

  it('finds tag characters, which can spell out a hidden message, with the letter each stands for', () => {
    const hidden = 'ok' + String.fromCodePoint(0xe0001, 0xe0068, 0xe0069, 0xe007f);
    const found = findHiddenCharacters(hidden);
    expect(found.map((character) => [character.label, character.name, character.index, character.length])).toEqual([
      ['U+E0001', 'LANGUAGE TAG', 2, 2],
      ['U+E0068', 'TAG LATIN SMALL LETTER H', 4, 2],
      ['U+E0069', 'TAG LATIN SMALL LETTER I', 6, 2],
      ['U+E007F', 'CANCEL TAG', 8, 2],
    ]);
  });

  it('finds C0 and C1 control characters, such as a terminal escape sequence, but not a tab', () => {
    expect(findHiddenCharacters('echo "\x1b[2J\x1b]0;owned\x07"').map((character) => character.abbreviation)).toEqual(['ESC', 'ESC', 'BEL']);
    expect(labels('a\x00b\x08c\x7fd\x85e\x9bf')).toEqual(['U+0000', 'U+0008', 'U+007F', 'U+0085', 'U+009B']);
    expect(findHiddenCharacters('\x9b')[0]).toMatchObject({ name: 'CONTROL SEQUENCE INTRODUCER', kind: 'control' });
    expect(findHiddenCharacters('\tindented\tcode')).toEqual([]);
  });

  it('takes a carriage return that ends a line as a CRLF ending, and one anywhere else as a control', () => {
    expect(findHiddenCharacters('const a = 1;\r')).toEqual([]);
    expect(labels('echo safe\rrm -rf ~\r')).toEqual(['U+000D']);
    expect(labels('name\r', { line: false })).toEqual(['U+000D']);
  });

  it('shows a byte order mark at the start of a file without warning about it, and warns about U+FEFF anywhere else', () => {
    const [bom] = findHiddenCharacters('\ufeffimport x', { startOfFile: true });
    expect(bom).toMatchObject({ label: 'U+FEFF', name: 'BYTE ORDER MARK', abbreviation: 'BOM', warns: false });
    expect(hasHiddenCharacters('\ufeffimport x', { startOfFile: true })).toBe(false);
    expect(hasHiddenCharacters('\ufeffimport x')).toBe(true);
    expect(findHiddenCharacters('x\ufeff', { startOfFile: true })[0]).toMatchObject({ name: 'ZERO WIDTH NO-BREAK SPACE', warns: true });
  });

  it('leaves ordinary text alone: ASCII, accents, CJK, RTL letters, emoji and emoji sequences', () => {
    for (const text of ['const total = price * 1.2;', 'café 漢字 🙂', 'שלום עולם', 'مرحبا', '❤️ 👍🏽', '👩‍💻 🏳️‍🌈 👨🏽‍🚀', '1️⃣', ' ', '']) {
      expect(findHiddenCharacters(text)).toEqual([]);
    }
  });

  it('warns about a zero width joiner that joins no emoji, and about a run of variation selectors', () => {
    expect(labels('is\u200dAdmin')).toEqual(['U+200D']);
    expect(labels('👍\u200d')).toEqual(['U+200D']);
    // Data smuggled as variation selectors after a visible character (one selector is emoji style).
    expect(labels('a\ufe0f\ufe01\ufe02')).toEqual(['U+FE01', 'U+FE02']);
    expect(labels(`a${String.fromCodePoint(0xe0100)}`)).toEqual(['U+E0100']);
  });
});

describe('a line cut at its hidden characters', () => {
  it('keeps the visible text and puts each hidden character in a segment of its own', () => {
    const text = 'a\u202eb\u200b';
    expect(splitAtHiddenCharacters(text, findHiddenCharacters(text))).toEqual([
      { kind: 'text', text: 'a' },
      { kind: 'hidden', characters: [expect.objectContaining({ label: 'U+202E' })] },
      { kind: 'text', text: 'b' },
      { kind: 'hidden', characters: [expect.objectContaining({ label: 'U+200B' })] },
    ]);
    const plain = 'nothing hidden';
    expect(splitAtHiddenCharacters(plain, [])).toEqual([{ kind: 'text', text: plain }]);
  });

  it('keeps a run of tag characters together and reads out what they spell', () => {
    const text = `x${String.fromCodePoint(0xe0068, 0xe0069, 0xe0020, 0xe0021)}y`;
    const segments = splitAtHiddenCharacters(text, findHiddenCharacters(text));
    expect(segments.map((segment) => segment.kind)).toEqual(['text', 'hidden', 'text']);
    const run = segments[1]!;
    expect(run.kind === 'hidden' && describeHiddenSegment(run.characters)).toEqual({
      badge: '4 tags “hi !”',
      title: '4 invisible tag characters (U+E0068–U+E0021) that spell “hi !”',
      label: '4 invisible tag characters spelling “hi !”',
    });
  });

  it('names each character for its badge, tooltip and screen reader', () => {
    expect(describeHiddenSegment(findHiddenCharacters('\u202e'))).toEqual({
      badge: 'U+202E',
      title: 'U+202E RIGHT-TO-LEFT OVERRIDE (RLO): a bidirectional control: it changes the order in which the text around it is shown',
      label: 'U+202E right-to-left override',
    });
    expect(describeHiddenSegment(findHiddenCharacters('\ufeff', { startOfFile: true })).title).toMatch(/^U\+FEFF BYTE ORDER MARK \(BOM\): the encoding signature/);
  });
});
