// How catalogue text and a prescriber's search are cut into words: lower case, accents removed,
// split at anything but a letter or digit. The same cut on both sides makes "amox 500" find
// "Amoxicillin ... 500 mg", and keeps every word inside one index range per prefix.

/** Most words of a search that are matched (the rest are ignored): a bound on the query's size. */
export const MAX_SEARCH_WORDS = 6;

function wordsIn(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** The distinct words of the texts (what an item is found by). */
export function searchWordsOf(texts: string[]): string[] {
  return [...new Set(texts.flatMap(wordsIn))];
}

/** The prefixes a search matches by (its distinct words, at most MAX_SEARCH_WORDS). */
export function searchPrefixesOf(search: string): string[] {
  return [...new Set(wordsIn(search.slice(0, 200)))].slice(0, MAX_SEARCH_WORDS);
}
