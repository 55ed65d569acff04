// The layout DESIGN.md describes, held by the imports themselves: surfaces call services and
// never reach a store; the platform is a foundation that knows no feature; the SQLite driver is
// sealed behind the database module; only a feature's service makes its context; and features
// depend on each other in one direction only.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve('src');

function sourceFiles(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

interface Import {
  target: string;
  typeOnly: boolean;
}

/** The relative imports of a file, resolved to absolute paths. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const match of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'(\.[^']+)';/gms)) {
    found.push({ target: path.resolve(path.dirname(file), match[2]!), typeOnly: Boolean(match[1]) });
  }
  return found;
}

const rel = (file: string) => path.relative(process.cwd(), file);
const files = sourceFiles();
const isSurface = (file: string) => /-routes\.ts$|-pages\.ts$/.test(file) || file.includes(`${path.sep}cli${path.sep}`) || /dispatcher/.test(path.basename(file));

describe('the layout', () => {
  it('surfaces (routes, portal pages, CLI commands, the dispatcher) never import a store', () => {
    const offenders = files.filter(isSurface).flatMap((file) => importsOf(file).filter((i) => /-store\.ts$/.test(i.target)).map((i) => `${rel(file)} → ${rel(i.target)}`));
    expect(files.filter(isSurface).length).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });

  it('src/platform imports no feature folder', () => {
    const platform = path.join(SRC, 'platform');
    const allowed = [platform, path.join(SRC, 'config.ts'), path.resolve('migrations')];
    const offenders = files
      .filter((file) => file.startsWith(platform))
      .flatMap((file) => importsOf(file).filter((i) => !allowed.some((a) => i.target.startsWith(a))).map((i) => `${rel(file)} → ${rel(i.target)}`));
    expect(offenders).toEqual([]);
  });

  it('only the database module imports the SQLite group-commit driver', () => {
    const sqlite = path.join(SRC, 'platform', 'db', 'sqlite');
    const importers = files
      .filter((file) => !file.startsWith(sqlite))
      .filter((file) => importsOf(file).some((i) => i.target.startsWith(sqlite)))
      .map(rel);
    expect(importers).toEqual([rel(path.join(SRC, 'platform', 'db', 'database.ts'))]);
  });

  it("only a feature's service makes its context", () => {
    const makers = files.filter((file) => /export function create\w+Context\(/.test(fs.readFileSync(file, 'utf8')));
    expect(makers.length).toBeGreaterThan(4);
    expect(makers.filter((file) => !file.endsWith('-service.ts')).map(rel)).toEqual([]);
  });

  it('feature folders depend on each other without cycles (type-only imports aside)', () => {
    const folderOf = (file: string) => path.relative(SRC, file).split(path.sep)[0]!;
    const edges = new Map<string, Set<string>>();
    for (const file of files) {
      const from = folderOf(file);
      for (const { target, typeOnly } of importsOf(file)) {
        if (typeOnly || !target.startsWith(SRC)) continue;
        const to = folderOf(target);
        if (to !== from && !to.endsWith('.ts') && !from.endsWith('.ts')) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    const cycles: string[] = [];
    const visit = (node: string, trail: string[]) => {
      if (trail.includes(node)) return void cycles.push([...trail.slice(trail.indexOf(node)), node].join(' → '));
      for (const next of edges.get(node) ?? []) visit(next, [...trail, node]);
    };
    for (const node of edges.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});
