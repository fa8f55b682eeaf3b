import type { SnippetPiece } from '../../shared/search';
import { foldWord, searchWordPattern, type SearchWordMatcher } from './search-words';

/** Characters of context before the first match, and of snippet in all. */
const leadChars = 60;
const snippetChars = 220;

/**
 * The snippet a result shows: the part of its text around the first word that matched, with every
 * matching word as a `match` piece (the renderer marks it; no markup ever comes from the ledger). The
 * index keeps no text (search-index-schema.ts), so this reads the text it was given and finds the
 * words again the way the tokenizer does: letters and digits, case and diacritics folded.
 */
export function searchSnippet(text: string, matchers: readonly SearchWordMatcher[]): SnippetPiece[] {
  const matches = wordsFound(text, matchers);
  let start = matches.length > 0 ? Math.max(0, matches[0]!.start - leadChars) : 0;
  // Start at a word's beginning, not in the middle of one.
  if (start > 0) {
    const space = text.slice(start, matches[0]!.start).search(/\s/u);
    if (space !== -1) start += space + 1;
  }
  const end = Math.min(text.length, start + snippetChars);
  const pieces: SnippetPiece[] = [];
  const plain = (from: number, to: number) => {
    if (to > from) pieces.push({ text: text.slice(from, to).replace(/\s+/gu, ' '), match: false });
  };
  let at = start;
  for (const match of matches) {
    if (match.start < at || match.end > end) continue;
    plain(at, match.start);
    pieces.push({ text: text.slice(match.start, match.end), match: true });
    at = match.end;
  }
  plain(at, end);
  if (start > 0) pieces.unshift({ text: '…', match: false });
  if (end < text.length) pieces.push({ text: '…', match: false });
  return pieces;
}

/** Where in the text the words are, in order, as the tokenizer reads them (case and diacritics folded). */
export function wordsFound(text: string, matchers: readonly SearchWordMatcher[]): Array<{ start: number; end: number }> {
  const matches: Array<{ start: number; end: number }> = [];
  for (const token of text.matchAll(searchWordPattern)) {
    const folded = foldWord(token[0]);
    if (matchers.some((matcher) => (matcher.prefix ? folded.startsWith(matcher.word) : folded === matcher.word))) {
      matches.push({ start: token.index, end: token.index + token[0].length });
    }
  }
  return matches;
}
