// The layout DESIGN.md describes, held by the imports themselves (type-only imports counted):
// the code stands in layers and no import runs back up them; each feature has one face that
// code in src/ and scripts/ outside its folder imports (tests and the bench may import a
// feature's own files), and the face exports only what that code uses; no two files import each other round a circle (in any
// scanned folder, bench/ and test/ included), nor do feature folders; surfaces call services
// and never reach a store; the SQLite driver is sealed behind the database module; only a
// feature's service makes its context. The checker itself is tested over planted imports in
// import-graph.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backUpImports, faceExports, faceOf, featureCircles, fileCircles, importsPastFaces, layerOf, listFiles, readImportEdges, readTexts, unusedFaceNames } from './import-graph.ts';
import { FACED, LAYERS, SCANNED } from './layout.ts';

const files = listFiles(process.cwd(), SCANNED);
const edges = readImportEdges(process.cwd(), SCANNED);
const inSrc = edges.filter((edge) => edge.from.startsWith('src/') && !edge.from.endsWith('.test.ts'));
const isSurface = (file: string) => /-routes\.ts$|-pages\.ts$/.test(file) || file.startsWith('src/cli/') || /dispatcher/.test(path.basename(file));

describe('the layers', () => {
  it('holds every file of src/, migrations/, test/ and bench/ on one rung', () => {
    const named = new Set([...files, ...edges.map((edge) => edge.to)]);
    expect([...named].filter((file) => layerOf(file, LAYERS) === undefined)).toEqual([]);
    expect(files.length).toBeGreaterThan(300);
  });

  it('no import runs back up them, type-only imports included', () => {
    expect(edges.some((edge) => edge.typeOnly)).toBe(true);
    expect(backUpImports(edges, LAYERS)).toEqual([]);
  });
});

describe('the faces', () => {
  it("code outside a feature's folder in src/ and scripts/ imports only its index.ts (tests and the bench may import its own files)", () => {
    expect(FACED.filter((folder) => !fs.existsSync(faceOf(folder)))).toEqual([]);
    expect(importsPastFaces(edges, FACED)).toEqual([]);
  });

  it('every name a face exports is used by code in src/ or scripts/ outside its folder (tests and the bench import its own files)', () => {
    const texts = readTexts(process.cwd(), SCANNED);
    const faces = FACED.map(faceOf);
    expect(faces.reduce((sum, face) => sum + faceExports(face, texts.get(face)!).names.length, 0)).toBeGreaterThan(100);
    expect(unusedFaceNames(texts, faces)).toEqual([]);
  });

  it('no face hands out a store, so nothing outside a feature reaches its storage', () => {
    const offenders = edges.filter((edge) => FACED.some((folder) => edge.from === faceOf(folder)) && /-store\.ts$/.test(edge.to));
    expect(offenders).toEqual([]);
  });
});

describe('the circles', () => {
  it('no two files of any scanned folder (src/, migrations/, test/, bench/, scripts/, the client) import each other round a circle, type-only imports included', () => {
    expect(new Set(edges.map((edge) => edge.from.split('/')[0]))).toEqual(new Set(SCANNED.map((dir) => dir.split('/')[0])));
    expect(fileCircles(edges)).toEqual([]);
  });

  it('feature folders depend on each other without cycles, type-only imports included', () => {
    expect(featureCircles(edges, [...FACED, 'platform'])).toEqual([]);
  });
});

describe('the layout', () => {
  it('surfaces (routes, portal pages, CLI commands, the dispatcher) never import a store', () => {
    const surfaces = new Set(inSrc.map((edge) => edge.from).filter(isSurface));
    const offenders = inSrc.filter((edge) => isSurface(edge.from) && /-store\.ts$/.test(edge.to)).map((edge) => `${edge.from} → ${edge.to}`);
    expect(surfaces.size).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });

  it('src/platform imports no feature folder', () => {
    const allowed = ['src/platform/', 'src/config.ts', 'src/config-readers.ts', 'src/config-national.ts', 'src/config-settings.ts', 'migrations/'];
    const offenders = inSrc.filter((edge) => edge.from.startsWith('src/platform/') && !allowed.some((a) => edge.to.startsWith(a)));
    expect(offenders).toEqual([]);
  });

  it('the jobs after a commit share the platform delivery toolkit, not each other: token delivery imports nothing of webhooks', () => {
    const offenders = inSrc.filter((edge) => edge.from.startsWith('src/token-delivery/') && edge.to.startsWith('src/webhooks/'));
    expect(inSrc.some((edge) => edge.from.startsWith('src/token-delivery/') && edge.to.startsWith('src/platform/delivery/'))).toBe(true);
    expect(inSrc.some((edge) => edge.from.startsWith('src/webhooks/') && edge.to.startsWith('src/platform/delivery/'))).toBe(true);
    expect(offenders).toEqual([]);
  });

  it('retention runs the steps the features register and owns no rows: webhooks import nothing of it, and it deletes nothing itself', () => {
    expect(inSrc.filter((edge) => edge.from.startsWith('src/webhooks/') && edge.to.startsWith('src/retention/'))).toEqual([]);
    expect(inSrc.filter((edge) => edge.from.startsWith('src/retention/') && !edge.typeOnly && /^src\/(?!platform\/|retention\/)[^/]+\//.test(edge.to))).toEqual([]);
    const retentionFiles = files.filter((file) => file.startsWith('src/retention/') && !file.endsWith('.test.ts'));
    expect(retentionFiles.length).toBeGreaterThan(1);
    expect(retentionFiles.filter((file) => /deleteFrom\(|updateTable\(|insertInto\(/.test(fs.readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('only the database module imports the SQLite group-commit driver', () => {
    const sqlite = 'src/platform/db/sqlite/';
    const importers = new Set(inSrc.filter((edge) => !edge.from.startsWith(sqlite) && edge.to.startsWith(sqlite)).map((edge) => edge.from));
    expect([...importers]).toEqual(['src/platform/db/database.ts']);
  });

  it("only the sandbox PDS simulator uses erx's SCID generator: a SCID is the PDS's (DESIGN decision 25)", () => {
    const generator = /\bnew(Checked)?Scid\b/;
    const users = files.filter((file) => file.startsWith('src/') && !file.endsWith('.test.ts') && file !== 'src/pds/pds-scid.ts').filter((file) => generator.test(fs.readFileSync(file, 'utf8')));
    expect(users).toEqual(['src/pds/pds-simulator.ts']);
  });

  it("only a feature's service makes its context", () => {
    const makers = files.filter((file) => file.startsWith('src/') && !file.endsWith('.test.ts')).filter((file) => /export function create\w+Context\(/.test(fs.readFileSync(file, 'utf8')));
    expect(makers.length).toBeGreaterThan(4);
    expect(makers.filter((file) => !file.endsWith('-service.ts'))).toEqual([]);
  });
});
