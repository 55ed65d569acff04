// Request bodies are JSON, parsed with Fastify's own parser (which refuses __proto__ keys),
// after one check of our own: nesting. No partner body nests deeper than a few levels, while a
// body of a few kilobytes can nest thousands deep, and anything that walks such a value
// recursively (turning an array into text, serialising it, comparing it) runs out of stack.
// Such a body is refused as malformed (400) before any code sees it.
import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.ts';

/** Deepest nesting of objects and arrays a body may have; the deepest real body has 3. */
export const MAX_JSON_DEPTH = 32;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether `text` nests objects and arrays deeper than `limit` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth -= 1;
    }
  }
  return false;
}

export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) {
      return done(new ApiError('INVALID_REQUEST', `Request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    parse(request, body as string, done);
  });
}
