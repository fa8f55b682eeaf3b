import { describe, expect, it } from 'vitest';
import { initiallyOpenFiles, parseUnifiedDiff, unquoteGitPath } from './unified-diff';

// What `git diff -M --src-prefix=a/ --dst-prefix=b/ <base> --` printed for a view with one file of
// each kind of change (core.quotePath=false, as the core runs it).
const sample = [
  'diff --git a/bin.dat b/bin.dat',
  'index bdc955b..8835708 100644',
  'Binary files a/bin.dat and b/bin.dat differ',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  'index 3367afd..0000000',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-old',
  'diff --git a/héllo wörld.md b/héllo wörld.md',
  'new file mode 100644',
  'index 0000000..3e75765',
  '--- /dev/null',
  '+++ b/héllo wörld.md\t',
  '@@ -0,0 +1 @@',
  '+new',
  'diff --git a/keep.txt b/keep.txt',
  'index de98044..573c5c9 100644',
  '--- a/keep.txt',
  '+++ b/keep.txt',
  '@@ -1,3 +1,4 @@',
  ' a',
  '-b',
  '+B',
  ' c',
  '+--- not a header',
  'diff --git a/move-me.txt b/moved.txt',
  'similarity index 85%',
  'rename from move-me.txt',
  'rename to moved.txt',
  'index b566061..55a2cc0 100644',
  '--- a/move-me.txt',
  '+++ b/moved.txt',
  '@@ -3,4 +3,4 @@ two',
  ' three',
  ' four',
  ' five',
  '-six',
  '+six',
  '\\ No newline at end of file',
  'diff --git a/script.sh b/script.sh',
  'old mode 100644',
  'new mode 100755',
  'diff --git "a/tab\\tname.txt" "b/tab\\tname.txt"',
  'index 587be6b..b77b4eb 100644',
  '--- "a/tab\\tname.txt"',
  '+++ "b/tab\\tname.txt"',
  '@@ -1 +1,2 @@',
  ' x',
  '+y',
  '',
].join('\n');

describe('a run’s unified diff, file by file', () => {
  const files = parseUnifiedDiff(sample);

  it('finds every file with its change and path', () => {
    expect(files.map((file) => [file.change, file.path, file.oldPath])).toEqual([
      ['modified', 'bin.dat', null],
      ['deleted', 'gone.txt', null],
      ['added', 'héllo wörld.md', null],
      ['modified', 'keep.txt', null],
      ['renamed', 'moved.txt', 'move-me.txt'],
      ['modified', 'script.sh', null],
      ['modified', 'tab\tname.txt', null],
    ]);
  });

  it('marks each line as added, removed or context, with its line numbers', () => {
    const keep = files.find((file) => file.path === 'keep.txt')!;
    expect(keep.rows).toEqual([
      { kind: 'hunk', text: '@@ -1,3 +1,4 @@' },
      { kind: 'context', text: 'a', oldLine: 1, newLine: 1 },
      { kind: 'removed', text: 'b', oldLine: 2, newLine: null },
      { kind: 'added', text: 'B', oldLine: null, newLine: 2 },
      { kind: 'context', text: 'c', oldLine: 3, newLine: 3 },
      // Inside a hunk a line is content, however much it looks like a header.
      { kind: 'added', text: '--- not a header', oldLine: null, newLine: 4 },
    ]);
    expect([keep.additions, keep.deletions]).toEqual([2, 1]);
  });

  it('keeps binary files, mode changes, similarity and missing final newlines as notes', () => {
    expect(files[0]).toMatchObject({ binary: true, rows: [] });
    expect(files.find((file) => file.path === 'script.sh')!.notes).toEqual(['mode 100644 → 100755']);
    const moved = files.find((file) => file.path === 'moved.txt')!;
    expect(moved.notes).toEqual(['85% similar']);
    expect(moved.rows.at(-1)).toEqual({ kind: 'note', text: 'No newline at end of file' });
    expect(files.find((file) => file.path === 'gone.txt')!.rows.at(-1)).toEqual({ kind: 'removed', text: 'old', oldLine: 1, newLine: null });
  });

  it('says which file a truncated diff stops in', () => {
    const cut = parseUnifiedDiff(sample.slice(0, sample.indexOf('+B')), { truncated: true });
    expect(cut.at(-1)).toMatchObject({ path: 'keep.txt', cut: true });
    expect(cut.slice(0, -1).every((file) => !file.cut)).toBe(true);
    expect(parseUnifiedDiff('')).toEqual([]);
  });

  it('reads a renamed path with spaces from its rename lines', () => {
    const [renamed] = parseUnifiedDiff(
      ['diff --git a/old name.md b/new name.md', 'similarity index 100%', 'rename from old name.md', 'rename to new name.md', ''].join('\n'),
    );
    expect(renamed).toMatchObject({ change: 'renamed', path: 'new name.md', oldPath: 'old name.md', rows: [] });
  });
});

describe('git’s quoted paths', () => {
  it('decodes C-style escapes and octal UTF-8 bytes', () => {
    expect(unquoteGitPath('"tab\\there"')).toBe('tab\there');
    expect(unquoteGitPath('"caf\\303\\251 \\"q\\".md"')).toBe('café "q".md');
    expect(unquoteGitPath('plain.md')).toBe('plain.md');
  });
});

describe('which files open at first', () => {
  const withLines = (count: number) => ({ rows: Array.from({ length: count }, () => ({ kind: 'hunk' as const, text: '' })) });

  it('opens files in order while they fit, and leaves a huge one collapsed', () => {
    expect(initiallyOpenFiles([withLines(10), withLines(5000), withLines(20)], 100)).toEqual([true, false, true]);
    expect(initiallyOpenFiles([withLines(60), withLines(60)], 100)).toEqual([true, false]);
  });
});
