import { describe, expect, it } from 'vitest';
import {
  findDiffHiddenCharacters,
  hiddenCharactersHeadline,
  hiddenCharactersNamed,
  hiddenCharactersWarnings,
  hiddenCharactersWhere,
} from './diff-hidden-characters';
import { parseUnifiedDiff } from './unified-diff';

// What git prints for a run whose agent wrote the Trojan Source "commenting out" example, a string
// with a zero width space in it, and a file whose name holds a right-to-left override.
const diff = [
  'diff --git a/src/access.js b/src/access.js',
  'new file mode 100644',
  'index 0000000..1111111',
  '--- /dev/null',
  '+++ b/src/access.js',
  '@@ -0,0 +1,5 @@',
  '+var isAdmin = false;',
  '+/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only */',
  '+    console.log("You are an admin.");',
  '+/* end admins only \u202e { \u2066*/',
  '+const role = "admin\u200b";',
  'diff --git a/README.md b/README.md',
  'index 2222222..3333333 100644',
  '--- a/README.md',
  '+++ b/README.md',
  '@@ -1,2 +1,2 @@',
  '-\ufeff# Old title',
  '+\ufeff# New title',
  ' keep\u200b this',
  'diff --git a/notes/gpj.\u202etxt b/notes/gpj.\u202etxt',
  'new file mode 100644',
  'index 0000000..4444444',
  '--- /dev/null',
  '+++ b/notes/gpj.\u202etxt',
  '@@ -0,0 +1 @@',
  '+plain',
  '',
].join('\n');

const files = [
  { path: 'src/access.js', status: 'added' as const, additions: 1, deletions: 0 },
  { path: 'README.md', status: 'modified' as const, additions: 1, deletions: 0 },
  { path: 'notes/gpj.\u202etxt', status: 'added' as const, additions: 1, deletions: 0 },
];

describe('hidden characters in a run’s diff', () => {
  const sections = parseUnifiedDiff(diff);
  const report = findDiffHiddenCharacters(sections, files);

  it('finds the added lines and the file names that hold them, file by file', () => {
    expect(report.files.map((file) => [file.path, file.section, file.lines.map((line) => line.line), file.inName.map((character) => character.label)])).toEqual([
      ['src/access.js', 0, [2, 4, 5], []],
      ['notes/gpj.\u202etxt', 2, [], ['U+202E']],
    ]);
    expect([report.lineCount, report.nameCount]).toEqual([3, 1]);
    expect(report.characters.map((character) => character.label)).toEqual(['U+202E', 'U+2066', 'U+2069', 'U+200B']);
  });

  it('marks only the added lines that hold a character worth warning about', () => {
    const rowsOf = (index: number) => [...report.markedRows[index]!].map((row) => sections[index]!.rows[row]!.text);
    expect(rowsOf(0)).toEqual([
      '/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only */',
      '/* end admins only \u202e { \u2066*/',
      'const role = "admin\u200b";',
    ]);
    // A byte order mark at line 1 is the file's encoding; the zero width space is in a context line.
    expect(report.markedRows[1]!.size).toBe(0);
    expect(report.markedRows[2]!.size).toBe(0);
  });

  it('still has every hidden character of every shown line drawn, context and removed lines too', () => {
    const readme = report.rows[1]!;
    expect([...readme.entries()].map(([row, characters]) => [sections[1]!.rows[row]!.kind, characters.map((character) => character.name)])).toEqual([
      ['removed', ['BYTE ORDER MARK']],
      ['added', ['BYTE ORDER MARK']],
      ['context', ['ZERO WIDTH SPACE']],
    ]);
    expect(report.rows[0]!.get(2)!.map((character) => character.label)).toEqual(['U+202E', 'U+2066', 'U+2069', 'U+2066']);
  });

  it('says how many lines in how many files, where, which characters and why it matters', () => {
    expect(hiddenCharactersHeadline(report)).toBe('3 lines in 1 file and 1 file name hold hidden characters.');
    expect(hiddenCharactersWhere(report.files[0]!)).toBe('lines 2, 4 and 5');
    expect(hiddenCharactersWhere(report.files[1]!)).toBe('its name');
    expect(hiddenCharactersNamed(report.files[0]!.characters)).toBe(
      'U+202E right-to-left override, U+2066 left-to-right isolate, U+2069 pop directional isolate, U+200B zero width space',
    );
    expect(hiddenCharactersWarnings(report.characters)).toEqual([
      'Bidirectional controls change the order in which text is shown, so code can run differently from how it reads.',
      'Invisible characters show as nothing, so two names that look the same can differ.',
    ]);
  });

  it('words a single line or a single name in the singular', () => {
    const one = { files: [{ lines: [{ row: 1, line: 7 }], inName: [] }], lineCount: 1, nameCount: 0 };
    expect(hiddenCharactersHeadline(one)).toBe('1 line in 1 file holds hidden characters.');
    expect(hiddenCharactersWhere(one.files[0]!)).toBe('line 7');
    expect(hiddenCharactersHeadline({ files: [{ lines: [] }], lineCount: 0, nameCount: 1 })).toBe('1 file name holds hidden characters.');
  });

  it('has nothing to say about a diff without hidden characters', () => {
    const clean = parseUnifiedDiff(['diff --git a/a.txt b/a.txt', '--- a/a.txt', '+++ b/a.txt', '@@ -1 +1 @@', '-old', '+new', ''].join('\n'));
    const none = findDiffHiddenCharacters(clean, [{ path: 'a.txt', status: 'modified', additions: 1, deletions: 0 }]);
    expect(none).toMatchObject({ files: [], lineCount: 0, nameCount: 0, characters: [] });
    expect(none.rows[0]!.size).toBe(0);
  });

  it('still checks the name of a file the cut-off diff does not reach', () => {
    const cut = findDiffHiddenCharacters([], [{ path: 'late\u200b.ts', status: 'added', additions: 1, deletions: 0 }]);
    expect(cut.files).toEqual([expect.objectContaining({ path: 'late\u200b.ts', section: null, lines: [] })]);
  });
});
