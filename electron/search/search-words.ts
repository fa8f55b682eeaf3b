/**
 * Words as the index's unicode61 tokenizer reads them, for the query (search-query.ts) and for finding
 * the words again in a result's text (search-snippet.ts). Imports nothing: the search reader's thread
 * loads it from source as a plain module (search-reader.ts).
 */

/** A word as the unicode61 tokenizer reads one (letters and numbers, with their marks; everything else separates). */
export const searchWordPattern = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** A word as the index compares it: lower case, without diacritics (unicode61 remove_diacritics). */
export function foldWord(word: string): string {
  return word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** A word to look for in a result's text; `prefix` for one typed with a trailing `*`. */
export interface SearchWordMatcher {
  word: string;
  prefix: boolean;
}
