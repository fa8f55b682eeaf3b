import type { RunDiff } from '../../../shared/entities';

/**
 * A run's unified diff (git's, as getRunDiff returns it) split into files and lines for the Changes
 * section. Pure, so it is tested without a DOM.
 */

export type FileChange = RunDiff['files'][number]['status'];

export type DiffRow =
  | { kind: 'hunk'; text: string }
  | { kind: 'context' | 'added' | 'removed'; text: string; oldLine: number | null; newLine: number | null }
  /** `\ No newline at end of file` and the like: about the line before it. */
  | { kind: 'note'; text: string };

export interface DiffFileSection {
  path: string;
  /** Where a renamed file came from. */
  oldPath: string | null;
  change: FileChange;
  binary: boolean;
  /** Header facts worth showing: a mode change, a rename's similarity. */
  notes: string[];
  rows: DiffRow[];
  additions: number;
  deletions: number;
  /** The diff's size limit cut it off part-way through this file. */
  cut: boolean;
}

/** Git quotes a path with control characters or `"` in it, C-style, with UTF-8 bytes as octal escapes. */
export function unquoteGitPath(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  const inner = value.slice(1, -1);
  const bytes: number[] = [];
  const escapes: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
  const encoder = new TextEncoder();
  for (let index = 0; index < inner.length; index += 1) {
    const char = inner[index]!;
    if (char !== '\\') {
      bytes.push(...encoder.encode(char));
      continue;
    }
    const next = inner[index + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(inner.slice(index + 1, index + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      index += 3;
    } else if (next in escapes) {
      bytes.push(escapes[next]!);
      index += 1;
    } else {
      bytes.push(92);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** `a/src/x.ts` → `src/x.ts`; `/dev/null` → null. Git ends a path that has a space with a tab. */
function sidePath(raw: string, prefix: 'a/' | 'b/'): string | null {
  const value = unquoteGitPath(raw.replace(/\t$/, ''));
  if (value === '/dev/null') return null;
  return value.startsWith(prefix) ? value.slice(prefix.length) : value;
}

/** The paths of `diff --git a/X b/Y`: exact when quoted or when both sides are the same path. */
function headerPaths(rest: string): { oldPath: string; newPath: string } {
  const quoted = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*")$/.exec(rest) ?? /^("(?:[^"\\]|\\.)*") (\S+)$/.exec(rest);
  if (quoted && (quoted[1]!.startsWith('"') || quoted[2]!.startsWith('"'))) {
    return { oldPath: sidePath(quoted[1]!, 'a/') ?? '', newPath: sidePath(quoted[2]!, 'b/') ?? '' };
  }
  // Unquoted paths may hold spaces: `a/P b/P` splits unambiguously when both sides agree.
  const half = (rest.length - 5) / 2;
  if (Number.isInteger(half) && half > 0 && rest.startsWith('a/') && rest.slice(2 + half, 5 + half) === ' b/') {
    const oldPath = rest.slice(2, 2 + half);
    const newPath = rest.slice(5 + half);
    if (oldPath === newPath) return { oldPath, newPath };
  }
  // A rename: the `rename from/to` and `---/+++` lines that follow say it exactly.
  const at = rest.indexOf(' b/');
  if (at === -1) return { oldPath: rest, newPath: rest };
  return { oldPath: rest.slice(0, at).replace(/^a\//, ''), newPath: rest.slice(at + 3) };
}

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function parseUnifiedDiff(text: string, options: { truncated?: boolean } = {}): DiffFileSection[] {
  const files: DiffFileSection[] = [];
  let file: DiffFileSection | null = null;
  // Lines still due in the current hunk, from its header: content lines are classified by these
  // counts, never by their look (a removed line may well read `--- something`).
  let oldLeft = 0;
  let newLeft = 0;
  let oldLine = 0;
  let newLine = 0;

  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();

  for (const line of lines) {
    if (file && (oldLeft > 0 || newLeft > 0)) {
      const mark = line[0];
      if (mark === '+') {
        file.rows.push({ kind: 'added', text: line.slice(1), oldLine: null, newLine: newLine++ });
        file.additions += 1;
        newLeft -= 1;
        continue;
      }
      if (mark === '-') {
        file.rows.push({ kind: 'removed', text: line.slice(1), oldLine: oldLine++, newLine: null });
        file.deletions += 1;
        oldLeft -= 1;
        continue;
      }
      if (mark === ' ' || line === '') {
        file.rows.push({ kind: 'context', text: line.slice(1), oldLine: oldLine++, newLine: newLine++ });
        oldLeft -= 1;
        newLeft -= 1;
        continue;
      }
      if (mark === '\\') {
        file.rows.push({ kind: 'note', text: line.slice(1).trim() });
        continue;
      }
      // Anything else ends the hunk early (a malformed or cut diff): read it as a header line.
      oldLeft = 0;
      newLeft = 0;
    }

    if (line.startsWith('diff --git ')) {
      const paths = headerPaths(line.slice('diff --git '.length));
      file = {
        path: paths.newPath,
        oldPath: paths.oldPath !== paths.newPath ? paths.oldPath : null,
        change: 'modified',
        binary: false,
        notes: [],
        rows: [],
        additions: 0,
        deletions: 0,
        cut: false,
      };
      files.push(file);
      continue;
    }
    if (!file) continue;

    const hunk = hunkHeader.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLine = Number(hunk[3]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      file.rows.push({ kind: 'hunk', text: line });
      continue;
    }
    if (line.startsWith('\\')) {
      file.rows.push({ kind: 'note', text: line.slice(1).trim() });
    } else if (line.startsWith('new file mode')) {
      file.change = 'added';
    } else if (line.startsWith('deleted file mode')) {
      file.change = 'deleted';
    } else if (line.startsWith('rename from ')) {
      file.change = 'renamed';
      file.oldPath = unquoteGitPath(line.slice('rename from '.length));
    } else if (line.startsWith('rename to ')) {
      file.change = 'renamed';
      file.path = unquoteGitPath(line.slice('rename to '.length));
    } else if (line.startsWith('similarity index ')) {
      file.notes.push(`${line.slice('similarity index '.length)} similar`);
    } else if (line.startsWith('old mode ')) {
      file.notes.push(`mode ${line.slice('old mode '.length)}`);
    } else if (line.startsWith('new mode ')) {
      const previous = file.notes.findIndex((note) => note.startsWith('mode '));
      const change = `→ ${line.slice('new mode '.length)}`;
      if (previous === -1) file.notes.push(`mode ${change}`);
      else file.notes[previous] = `${file.notes[previous]} ${change}`;
    } else if (line.startsWith('Binary files ') || line === 'GIT binary patch') {
      file.binary = true;
    } else if (line.startsWith('--- ')) {
      const path = sidePath(line.slice(4), 'a/');
      if (path === null) file.change = 'added';
      else if (file.change !== 'renamed') file.oldPath = path === file.path ? null : path;
    } else if (line.startsWith('+++ ')) {
      const path = sidePath(line.slice(4), 'b/');
      if (path === null) file.change = 'deleted';
      else file.path = path;
    }
  }

  if (options.truncated && files.length > 0) files.at(-1)!.cut = true;
  for (const section of files) {
    if (section.change === 'deleted' && section.oldPath && section.path !== section.oldPath) {
      // A deletion names the file by the path it had.
      section.path = section.oldPath;
      section.oldPath = null;
    }
  }
  return files;
}

export const fileChangeLabels: Record<FileChange, string> = {
  added: 'Added',
  modified: 'Modified',
  deleted: 'Deleted',
  renamed: 'Renamed',
};

export function diffLineCount(file: Pick<DiffFileSection, 'rows'>): number {
  return file.rows.length;
}

/** How many diff lines open by default, in all, so a large diff does not freeze the page. */
export const openLinesBudget = 1500;
/** How many lines of one file render at first; the rest on request. */
export const fileLinesStep = 1000;

/**
 * Which files start expanded: in order, while they fit the budget. A file too large for what is left
 * starts collapsed (its header still says how large it is), and later smaller files may still open.
 */
export function initiallyOpenFiles(files: readonly Pick<DiffFileSection, 'rows'>[], budget = openLinesBudget): boolean[] {
  let left = budget;
  return files.map((file) => {
    const lines = diffLineCount(file);
    if (lines > left) return false;
    left -= lines;
    return true;
  });
}

/** The section of the diff for each file git listed: matched by path, so the list and the diff agree. */
export function sectionFor(sections: readonly DiffFileSection[], path: string): DiffFileSection | undefined {
  return sections.find((section) => section.path === path);
}
