// The documentation's links, checked as GitHub renders them: every relative link names a file or
// folder of the repository, every #anchor a heading of its page (GitHub's heading ids), and every
// page of docs/ can be reached from README.md by following links. Read by test/docs/links.test.ts,
// on the repository and on a copy with a broken link planted.
import fs from 'node:fs';
import path from 'node:path';

export interface LinkProblem {
  /** The page holding the link, relative to the root, with / separators. */
  file: string;
  line: number;
  link: string;
  reason: string;
}

export interface DocsCheck {
  /** The pages checked: README.md, BENCHMARKS.md and docs/**.md, relative to the root. */
  pages: string[];
  problems: LinkProblem[];
  /** Pages of docs/ that no chain of links from README.md reaches. */
  unreachable: string[];
}

/**
 * The id GitHub gives a heading (github-slugger, which github.com's renderer follows): the
 * heading's text lower-cased, every character that is not a letter, mark, number, connector
 * (`_`), hyphen or space removed, each space made a hyphen. Inline formatting is text first.
 */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

interface Line {
  number: number;
  text: string;
}

/** The lines outside fenced code blocks (``` or ~~~), with their 1-based numbers. */
function proseLines(markdown: string): Line[] {
  const lines: Line[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length && text.trim() === opener) fence = undefined;
      return;
    }
    if (opener) {
      fence = opener;
      return;
    }
    lines.push({ number: index + 1, text });
  });
  return lines;
}

/** Every anchor a page offers: its headings' ids (repeats numbered -1, -2, ... as GitHub does) and explicit ids. */
export function pageAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const occurrences = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]!);
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = githubSlug(heading);
    let slug = base;
    if (occurrences.has(base)) {
      let n = occurrences.get(base)!;
      do slug = `${base}-${++n}`;
      while (occurrences.has(slug));
      occurrences.set(base, n);
    }
    occurrences.set(slug, 0);
    anchors.add(slug);
  }
  return anchors;
}

/** Every link target of a page outside code: inline links and images, reference definitions, HTML href and src. */
export function pageLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const { number, text } of proseLines(markdown)) {
    const prose = text.replace(/(`+)(?:(?!\1)[^])*?\1/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: match[1]!, line: number });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(prose);
    if (definition) links.push({ target: definition[1]!, line: number });
    for (const match of prose.matchAll(/\b(?:href|src)="([^"]*)"/g)) links.push({ target: match[1]!, line: number });
  }
  return links;
}

function markdownFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

const toPosix = (file: string) => file.split(path.sep).join('/');

/** Checks README.md, BENCHMARKS.md and every page under docs/ of `root`. */
export function checkDocs(root: string): DocsCheck {
  const benchmarks = path.join(root, 'BENCHMARKS.md');
  const pages = [path.join(root, 'README.md'), ...(fs.existsSync(benchmarks) ? [benchmarks] : []), ...markdownFiles(path.join(root, 'docs'))]
    .map((file) => toPosix(path.relative(root, file)))
    .sort();
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, pageAnchors(fs.readFileSync(path.join(root, file), 'utf8')));
    return anchorsOf.get(file)!;
  };
  const problems: LinkProblem[] = [];
  const linkedPages = new Map<string, string[]>();

  for (const page of pages) {
    const targets: string[] = [];
    linkedPages.set(page, targets);
    for (const { target, line } of pageLinks(fs.readFileSync(path.join(root, page), 'utf8'))) {
      const problem = (reason: string) => problems.push({ file: page, line, link: target, reason });
      if (target === '') {
        problem('empty link');
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // absolute: not checked here
      const hash = target.indexOf('#');
      const pathPart = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? undefined : target.slice(hash + 1);
      let file: string;
      try {
        const decoded = decodeURIComponent(pathPart);
        file = decoded === '' ? page : toPosix(path.normalize(decoded.startsWith('/') ? decoded.slice(1) : path.posix.join(path.posix.dirname(page), decoded)));
      } catch {
        problem('not a valid URL path');
        continue;
      }
      if (file === '..' || file.startsWith('../')) {
        problem('points outside the repository');
        continue;
      }
      const full = path.join(root, file);
      if (!fs.existsSync(full)) {
        problem(`no such file: ${file}`);
        continue;
      }
      const isPage = fs.statSync(full).isFile() && file.endsWith('.md');
      if (isPage) targets.push(file);
      if (anchor === undefined) continue;
      if (!isPage) problem(`an anchor into ${file}, which is not a markdown page`);
      else if (!anchors(file).has(decodeURIComponent(anchor))) problem(`no heading #${anchor} in ${file}`);
    }
  }

  const reached = new Set<string>(['README.md']);
  const queue = ['README.md'];
  while (queue.length > 0) {
    for (const next of linkedPages.get(queue.shift()!) ?? []) {
      if (reached.has(next) || !linkedPages.has(next)) continue;
      reached.add(next);
      queue.push(next);
    }
  }
  const unreachable = pages.filter((page) => page.startsWith('docs/') && !reached.has(page));
  return { pages, problems, unreachable };
}
