import { OperatorError } from '../../shared/errors';
import { hiddenCharacters } from '../ledger/output-text';
import { foldWord, searchWordPattern, type SearchWordMatcher } from './search-words';

/**
 * A query as a person types it, made into an FTS5 MATCH expression by us, token by token: what is
 * typed never reaches SQLite as syntax, so quotes, hyphens, `*`, `NEAR(`, `AND` or an unbalanced
 * quote can never be an FTS5 syntax error (or an operator the person did not mean).
 *
 * - `"…"` is a phrase (its words in order); an unbalanced quote's phrase runs to the end;
 * - anything else is split at whitespace into terms; a term's words (letters, digits and marks, as
 *   the index's unicode61 tokenizer reads them) are a phrase too: `ERR_CONN-RESET` finds the words
 *   ERR CONN RESET in a row, as it was printed;
 * - a term ending in `*` matches its last word as a prefix;
 * - every term must match (AND);
 * - characters that draw nothing are dropped first, as the index drops them (ledger/output-text.ts).
 */

export interface SearchTerms {
  /** The MATCH expression. */
  match: string;
  /** The words, as typed (in order, without repeats), for highlighting. */
  words: string[];
  /** The words folded as the index compares them; `prefix` for a word that ended in `*`. */
  matchers: SearchWordMatcher[];
}

/** More would only slow the query: no person types this many. */
const maxTerms = 32;

export function searchTerms(typed: string): SearchTerms {
  // What draws nothing is dropped as the index drops it: a word pasted with a zero-width space in it is found whole.
  const query = typed.replace(hiddenCharacters, '');
  const phrases: Array<{ words: string[]; prefix: boolean }> = [];
  let at = 0;
  while (at < query.length) {
    const char = query[at]!;
    if (/\s/u.test(char)) {
      at++;
      continue;
    }
    if (char === '"') {
      const close = query.indexOf('"', at + 1);
      const end = close === -1 ? query.length : close;
      const text = query.slice(at + 1, end);
      const prefix = text.trimEnd().endsWith('*');
      phrases.push({ words: wordsOf(text), prefix });
      at = end + 1;
      continue;
    }
    let end = at;
    while (end < query.length && !/\s/u.test(query[end]!) && query[end] !== '"') end++;
    const text = query.slice(at, end);
    phrases.push({ words: wordsOf(text), prefix: text.endsWith('*') });
    at = end;
  }
  const kept = phrases.filter((phrase) => phrase.words.length > 0);
  if (kept.length === 0) {
    throw new OperatorError({
      code: 'invalid_request',
      reason: 'no_search_words',
      message: 'Nothing to search for: type a word or a number (punctuation alone is not indexed).',
    });
  }
  if (kept.length > maxTerms) {
    throw new OperatorError({
      code: 'invalid_request',
      reason: 'too_many_search_words',
      message: `A search takes up to ${maxTerms} words or phrases; leave out the most common ones and search again.`,
    });
  }
  const match = kept.map((phrase) => `"${phrase.words.join(' ').replaceAll('"', '""')}"${phrase.prefix ? ' *' : ''}`).join(' AND ');
  const words = [...new Set(kept.flatMap((phrase) => phrase.words))];
  const matchers = kept.flatMap((phrase) => phrase.words.map((word, k) => ({ word: foldWord(word), prefix: phrase.prefix && k === phrase.words.length - 1 })));
  return { match, words, matchers };
}

function wordsOf(text: string): string[] {
  return text.match(searchWordPattern) ?? [];
}
