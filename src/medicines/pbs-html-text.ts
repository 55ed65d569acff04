// A restriction's text without its HTML, read in one pass over its characters. The regular
// expression it replaces (`<[^>]*>`) scanned the rest of the text again from every `<` that no
// `>` closes, so a value of 200,000 `<` (well within a record) held the import for minutes: the
// time grew with the square of the length. Here each character is looked at once.

/** Tags after which the text goes on a new line: a line break, the end of a paragraph, list item, division or heading. */
const LINE_ENDING_TAG = /^\s*(br|\/p|\/li|\/div|\/h\d)\s*\/?\s*$/i;
/** Longer than any line-ending tag with spaces in it: a longer tag is not tested against the pattern at all. */
const LINE_ENDING_TAG_MAX_LENGTH = 16;

const ENTITIES: Readonly<Record<string, string>> = { nbsp: ' ', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", amp: '&' };

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;

/** The text outside tags; a line-ending tag becomes a line break; a `<` no `>` closes is kept as text. */
function stripTags(html: string): string {
  const parts: string[] = [];
  let textStart = 0;
  let tagStart = -1;
  for (let at = 0; at < html.length; at += 1) {
    const code = html.charCodeAt(at);
    if (tagStart === -1 && code === LESS_THAN) {
      parts.push(html.slice(textStart, at));
      tagStart = at;
    } else if (tagStart !== -1 && code === GREATER_THAN) {
      const tag = html.slice(tagStart + 1, at);
      if (tag.length <= LINE_ENDING_TAG_MAX_LENGTH && LINE_ENDING_TAG.test(tag)) parts.push('\n');
      tagStart = -1;
      textStart = at + 1;
    }
  }
  parts.push(html.slice(tagStart === -1 ? textStart : tagStart));
  return parts.join('');
}

/** The restriction's text without its HTML: paragraphs and list items on lines of their own. */
export function plainTextOf(html: string): string {
  // One pass for the entities too, so `&amp;lt;` is `&lt;`, never `<`.
  const text = stripTags(html).replace(/&(nbsp|lt|gt|quot|#39|apos|amp);/g, (_entity, name: string) => ENTITIES[name]!);
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}
