import type { RunDiff } from '../../../shared/entities';
import { characterWords, findHiddenCharacters, type HiddenCharacter, type HiddenCharacterKind } from '../../../shared/hidden-characters';
import { pluralize } from '../../ui/format';
import type { DiffFileSection, DiffRow } from './unified-diff';

/**
 * Where a run's diff holds hidden characters, for the Changes view: the lines the agent added that
 * hold them (what the warning counts and the diff marks), the changed file names that hold them, and,
 * for every line shown, the characters to draw as badges instead of leaving them invisible. Pure, so
 * it is tested without a DOM.
 */

export interface HiddenCharacterLine {
  /** The row's index in its section's rows. */
  row: number;
  /** Its line number in the new file. */
  line: number;
}

export interface FileHiddenCharacters {
  path: string;
  /** Its section in the diff; null when the diff does not reach it (cut off), so only its name counts. */
  section: number | null;
  /** Added lines that hold a hidden character worth warning about. */
  lines: HiddenCharacterLine[];
  /** Hidden characters in its name (or in the name it had before a rename). */
  inName: HiddenCharacter[];
  /** Each distinct character found in its added lines and name, in the order first found. */
  characters: HiddenCharacter[];
}

export interface DiffHiddenCharacters {
  /** The files with something to warn about, in the order of the file list. */
  files: FileHiddenCharacters[];
  lineCount: number;
  nameCount: number;
  /** Each distinct character warned about, in the order first found. */
  characters: HiddenCharacter[];
  /** For each section, the characters to show in each row that has any (any kind of row). */
  rows: ReadonlyMap<number, HiddenCharacter[]>[];
  /** For each section, the rows to mark: added lines that hold a character worth warning about. */
  markedRows: ReadonlySet<number>[];
}

/** The text of a row begins its file when it is line 1 of its side: only there is U+FEFF a byte order mark. */
function rowStartsFile(row: Exclude<DiffRow, { kind: 'hunk' | 'note' }>): boolean {
  return row.kind === 'removed' ? row.oldLine === 1 : row.newLine === 1;
}

function addDistinct(into: HiddenCharacter[], characters: readonly HiddenCharacter[]) {
  for (const character of characters) {
    if (character.warns && !into.some((known) => known.codePoint === character.codePoint)) into.push(character);
  }
}

export function findDiffHiddenCharacters(sections: readonly DiffFileSection[], files: RunDiff['files']): DiffHiddenCharacters {
  const rows: Map<number, HiddenCharacter[]>[] = [];
  const markedRows: Set<number>[] = [];
  const bySection = new Map<number, { lines: HiddenCharacterLine[]; characters: HiddenCharacter[] }>();

  sections.forEach((section, sectionIndex) => {
    const shown = new Map<number, HiddenCharacter[]>();
    const marked = new Set<number>();
    const lines: HiddenCharacterLine[] = [];
    const characters: HiddenCharacter[] = [];
    section.rows.forEach((row, rowIndex) => {
      if (row.kind === 'note') return;
      const found = findHiddenCharacters(row.text, { startOfFile: row.kind !== 'hunk' && rowStartsFile(row) });
      if (found.length === 0) return;
      shown.set(rowIndex, found);
      // Only what the agent wrote is warned about; a context or removed line was there before.
      if (row.kind === 'added' && found.some((character) => character.warns)) {
        marked.add(rowIndex);
        lines.push({ row: rowIndex, line: row.newLine ?? 0 });
        addDistinct(characters, found);
      }
    });
    rows.push(shown);
    markedRows.push(marked);
    if (lines.length > 0) bySection.set(sectionIndex, { lines, characters });
  });

  const report: FileHiddenCharacters[] = [];
  const seen = new Set<number>();
  const entry = (path: string, section: number | null, inName: HiddenCharacter[]) => {
    const found = section === null ? undefined : bySection.get(section);
    if (!found && inName.length === 0) return;
    const characters: HiddenCharacter[] = [];
    addDistinct(characters, found?.characters ?? []);
    addDistinct(characters, inName);
    report.push({ path, section, lines: found?.lines ?? [], inName, characters });
  };
  for (const file of files) {
    const index = sections.findIndex((section) => section.path === file.path);
    if (index !== -1) seen.add(index);
    const inName = [file.path, file.oldPath ?? ''].flatMap((name) => findHiddenCharacters(name, { line: false })).filter((character) => character.warns);
    entry(file.path, index === -1 ? null : index, inName);
  }
  // A section git's file list did not name (it should not happen, but the diff is what is shown).
  sections.forEach((section, index) => {
    if (!seen.has(index)) entry(section.path, index, []);
  });

  const characters: HiddenCharacter[] = [];
  for (const file of report) addDistinct(characters, file.characters);
  return {
    files: report,
    lineCount: report.reduce((sum, file) => sum + file.lines.length, 0),
    nameCount: report.filter((file) => file.inName.length > 0).length,
    characters,
    rows,
    markedRows,
  };
}

/** `1`, `1 and 4`, `1, 4 and 9`. */
function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The headline: `3 lines in 1 file hold hidden characters.` */
export function hiddenCharactersHeadline(report: {
  files: readonly Pick<FileHiddenCharacters, 'lines'>[];
  lineCount: number;
  nameCount: number;
}): string {
  const filesWithLines = report.files.filter((file) => file.lines.length > 0).length;
  const lines = report.lineCount > 0 ? `${pluralize(report.lineCount, 'line')} in ${pluralize(filesWithLines, 'file')}` : '';
  const names = report.nameCount > 0 ? pluralize(report.nameCount, 'file name') : '';
  const singular = (report.lineCount === 1 && report.nameCount === 0) || (report.lineCount === 0 && report.nameCount === 1);
  return `${[lines, names].filter(Boolean).join(' and ')} ${singular ? 'holds' : 'hold'} hidden characters.`;
}

const kindWarnings: Record<HiddenCharacterKind, string> = {
  bidi: 'Bidirectional controls change the order in which text is shown, so code can run differently from how it reads.',
  invisible: 'Invisible characters show as nothing, so two names that look the same can differ.',
  separator: 'Line and paragraph separators break lines in some editors and languages but not in others.',
  control: 'Control characters can move the cursor or rewrite a terminal when the file is printed.',
};

/** Why it matters, one sentence for each kind found, most dangerous first. */
export function hiddenCharactersWarnings(characters: readonly Pick<HiddenCharacter, 'kind'>[]): string[] {
  const kinds = new Set(characters.map((character) => character.kind));
  return (['bidi', 'invisible', 'control', 'separator'] as const).filter((kind) => kinds.has(kind)).map((kind) => kindWarnings[kind]);
}

/** Where in one file: `lines 2, 4 and 5`, `its name`, `line 3 and its name`. */
export function hiddenCharactersWhere(file: Pick<FileHiddenCharacters, 'lines' | 'inName'>): string {
  const parts: string[] = [];
  if (file.lines.length > 0) parts.push(`${file.lines.length === 1 ? 'line' : 'lines'} ${listInWords(file.lines.map((line) => String(line.line)))}`);
  if (file.inName.length > 0) parts.push('its name');
  return parts.join(' and ');
}

/** Which characters, in words: `U+202E right-to-left override, U+200B zero width space`. */
export function hiddenCharactersNamed(characters: readonly HiddenCharacter[]): string {
  return characters.map((character) => `${character.label} ${characterWords(character)}`).join(', ');
}
