// The checker behind the architecture test: the relative imports of the code base as a list of
// edges (type-only imports included: a type is a dependency a reader must follow too), and the
// rules over them as plain functions, so a test can run them over a planted list as well as
// over the tree.
import fs from 'node:fs';
import path from 'node:path';

/** One import between two files, as paths from the repository root with forward slashes. */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** A rung of the layering: path prefixes (ending in `/`), exact files, or `*` and a file-name ending. Lower rungs come first. */
export interface Layer {
  name: string;
  paths: string[];
}

// import … from '…', export … from '…' and import '…' (a side-effect import). Import clauses
// never hold a semicolon, so one statement never runs into the next.
const STATEMENT = /^\s*(import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?'([^']+)';?/gm;

/** The relative imports in a file's text, type-only ones marked. */
export function parseImports(text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const found: Array<{ specifier: string; typeOnly: boolean }> = [];
  for (const match of text.matchAll(STATEMENT)) {
    const specifier = match[3]!;
    if (specifier.startsWith('.')) found.push({ specifier, typeOnly: Boolean(match[2]) });
  }
  return found;
}

function tsFiles(root: string, dir: string): string[] {
  const full = path.join(root, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const child = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(root, child);
    return entry.name.endsWith('.ts') ? [child] : [];
  });
}

/** The `.ts` files under `dirs`, as paths from the root. */
export function listFiles(root: string, dirs: string[]): string[] {
  return dirs.flatMap((dir) => tsFiles(root, dir));
}

/** Every relative import of the `.ts` files under `dirs` (unit tests beside the code included). */
export function readImportEdges(root: string, dirs: string[]): ImportEdge[] {
  return dirs.flatMap((dir) =>
    tsFiles(root, dir).flatMap((from) =>
      parseImports(fs.readFileSync(path.join(root, from), 'utf8')).map(({ specifier, typeOnly }) => ({
        from,
        to: path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)),
        typeOnly,
      })),
    ),
  );
}

function holds(pattern: string, file: string): boolean {
  if (pattern.startsWith('*')) return file.endsWith(pattern.slice(1));
  return pattern.endsWith('/') ? file.startsWith(pattern) : file === pattern;
}

/** The rung a file sits on (the highest that names it), or undefined when none does. */
export function layerOf(file: string, layers: Layer[]): number | undefined {
  for (let index = layers.length - 1; index >= 0; index--) {
    if (layers[index]!.paths.some((pattern) => holds(pattern, file))) return index;
  }
  return undefined;
}

/** Imports that run back up the layers: a file importing a file on a higher rung. */
export function backUpImports(edges: ImportEdge[], layers: Layer[]): string[] {
  return edges.flatMap(({ from, to }) => {
    const [low, high] = [layerOf(from, layers), layerOf(to, layers)];
    if (low === undefined || high === undefined || high <= low) return [];
    return [`${from} (${layers[low]!.name}) → ${to} (${layers[high]!.name})`];
  });
}

/** The feature folder a file belongs to (`src/<feature>/…`), if any. */
export function featureOf(file: string, features: string[]): string | undefined {
  return features.find((feature) => file.startsWith(`src/${feature}/`));
}

/** The one file of a feature that code outside its folder may import. */
export const faceOf = (feature: string) => `src/${feature}/index.ts`;

/**
 * The files that may import a feature's own files past its face: the tests and the bench (test/
 * with its shared helpers, bench/, and the unit tests beside the code, `*.test.ts`). They test or
 * measure a feature from inside. Everything else outside a feature's folder (other features,
 * features.ts, app.ts, the runtime, the surfaces, the CLI, scripts/) goes through the face, so the
 * face says exactly what the rest of erx uses.
 */
export const MAY_PASS_FACES = ['test/', 'bench/', '*.test.ts'];

/** Imports from outside a feature's folder (tests and bench excepted) that reach past its face to another of its files. */
export function importsPastFaces(edges: ImportEdge[], features: string[]): string[] {
  return edges.flatMap(({ from, to }) => {
    const feature = featureOf(to, features);
    if (feature === undefined || from.startsWith(`src/${feature}/`) || to === faceOf(feature)) return [];
    if (MAY_PASS_FACES.some((pattern) => holds(pattern, from))) return [];
    return [`${from} → ${to} (outside ${feature}/, past its face ${faceOf(feature)})`];
  });
}

/** The groups of nodes that reach each other (strongly connected, more than one node, or a node importing itself). */
export function circles(pairs: Array<[string, string]>): string[][] {
  const next = new Map<string, string[]>();
  for (const [from, to] of pairs) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (next.get(node) ?? []).includes(node)) found.push(group.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Files that import each other round a circle. */
export function fileCircles(edges: ImportEdge[]): string[][] {
  return circles(edges.map(({ from, to }) => [from, to]));
}

/** Feature folders that depend on each other round a circle. */
export function featureCircles(edges: ImportEdge[], features: string[]): string[][] {
  const pairs = edges.flatMap(({ from, to }): Array<[string, string]> => {
    const [a, b] = [featureOf(from, features), featureOf(to, features)];
    return a !== undefined && b !== undefined && a !== b ? [[a, b]] : [];
  });
  return circles(pairs);
}

/** A name in an import or export clause: the name in the file it comes from, the name it takes here. */
export interface ClauseName {
  imported: string;
  local: string;
  typeOnly: boolean;
}

/** One import or re-export statement with a clause: its names (or `*` for a namespace or star), and where from. */
export interface NamedStatement {
  kind: 'import' | 'export';
  specifier: string;
  names: ClauseName[] | '*';
}

const CLAUSE = /^\s*(import|export)\s+(type\s+)?(?:\w+\s*,\s*)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?)\s+from\s+'([^']+)';?/gm;

/** The import and re-export statements of a file that name what they take (`{ a, b as c, type T }`, `* as ns`, `*`). */
export function parseNamedStatements(text: string): NamedStatement[] {
  return [...text.matchAll(CLAUSE)].map((match) => {
    const [, kind, typeKeyword, clause, specifier] = match as unknown as [string, 'import' | 'export', string | undefined, string, string];
    if (clause.startsWith('*')) return { kind, specifier, names: '*' as const };
    const names = clause
      .slice(1, -1)
      .split(',')
      .map((part) => part.replace(/\/\/.*$/gm, '').trim())
      .filter(Boolean)
      .map((part) => {
        const typeOnly = Boolean(typeKeyword) || part.startsWith('type ');
        const [imported, local = imported] = part.replace(/^type\s+/, '').split(/\s+as\s+/).map((name) => name.trim()) as [string, string?];
        return { imported, local: local!, typeOnly };
      });
    return { kind, specifier, names };
  });
}

const DECLARATION = /^\s*export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|abstract\s+class|type|interface|enum)\s+(\w+)/gm;

/** The names a face exports, with problems: a star re-export hides its names, so it is refused. */
export function faceExports(face: string, text: string): { names: string[]; problems: string[] } {
  const names: string[] = [];
  const problems: string[] = [];
  for (const statement of parseNamedStatements(text)) {
    if (statement.kind !== 'export') continue;
    if (statement.names === '*') problems.push(`${face}: export * from '${statement.specifier}' (name what the face hands out)`);
    else names.push(...statement.names.map((name) => name.local));
  }
  for (const match of text.matchAll(DECLARATION)) names.push(match[1]!);
  for (const match of text.matchAll(/^\s*export\s+\{([^}]*)\}\s*;/gm)) {
    names.push(...match[1]!.split(',').map((part) => part.replace(/^\s*type\s+/, '').split(/\s+as\s+/).pop()!.trim()).filter(Boolean));
  }
  return { names, problems };
}

/** May this file use a face's names? Code in src/ (unit tests aside) outside the face's folder, and scripts/. */
export function usesFaces(file: string): boolean {
  return (file.startsWith('src/') || file.startsWith('scripts/')) && !file.endsWith('.test.ts');
}

/**
 * Face names nothing outside the face's folder in src/ or scripts/ uses (tests and the bench
 * import a feature's own files instead), as `face: name`, and the star re-exports refused.
 * `texts` maps each file (path from the root) to its text.
 */
export function unusedFaceNames(texts: Map<string, string>, faces: string[]): string[] {
  const used = new Map<string, Set<string | '*'>>(faces.map((face) => [face, new Set()]));
  for (const [file, text] of texts) {
    if (!usesFaces(file)) continue;
    for (const statement of parseNamedStatements(text)) {
      if (!statement.specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), statement.specifier));
      const names = used.get(target);
      if (names === undefined || file.startsWith(path.posix.dirname(target) + '/')) continue;
      if (statement.names === '*') names.add('*');
      else for (const name of statement.names) names.add(name.imported);
    }
  }
  return faces.flatMap((face) => {
    const text = texts.get(face);
    if (text === undefined) return [`${face}: missing`];
    const { names, problems } = faceExports(face, text);
    const users = used.get(face)!;
    if (users.has('*')) return problems;
    return [...problems, ...names.filter((name) => !users.has(name)).map((name) => `${face}: ${name}`)];
  });
}

/** The text of every `.ts` file under `dirs`, by path from the root. */
export function readTexts(root: string, dirs: string[]): Map<string, string> {
  return new Map(listFiles(root, dirs).map((file) => [file, fs.readFileSync(path.join(root, file), 'utf8')]));
}
