// The architecture test's checker, tested: it must fail on a planted import that runs back up
// the layers, on one past a feature's face and on a circle, type-only imports included; over
// synthetic import lists, over the real tree with one planted import, and over files written
// to a temporary directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backUpImports, featureCircles, fileCircles, importsPastFaces, parseImports, readImportEdges, type ImportEdge } from './import-graph.ts';
import { FACED, FEATURES, LAYERS, SCANNED } from './layout.ts';

const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });
const tree = readImportEdges(process.cwd(), SCANNED);

describe('reading imports', () => {
  it('finds value, type-only, multi-line, re-export and side-effect imports, and skips packages', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      "import {\n  c,\n  type D,\n} from './c.ts';",
      "export { e } from './e.ts';",
      "export type { F } from './f.ts';",
      "export * from './g.ts';",
      "import './h.ts';",
      "import fs from 'node:fs';",
      "import { describe } from 'vitest';",
    ].join('\n');
    expect(parseImports(text)).toEqual([
      { specifier: './a.ts', typeOnly: false },
      { specifier: '../b.ts', typeOnly: true },
      { specifier: './c.ts', typeOnly: false },
      { specifier: './e.ts', typeOnly: false },
      { specifier: './f.ts', typeOnly: true },
      { specifier: './g.ts', typeOnly: false },
      { specifier: './h.ts', typeOnly: false },
    ]);
  });

  it('reads the tree with its type-only imports', () => {
    expect(tree).toContainEqual(edge('src/features.ts', 'src/deps.ts', true));
    expect(tree.length).toBeGreaterThan(500);
  });
});

describe('the layers check', () => {
  it('fails on a feature importing the composition root, even for a type only', () => {
    const planted = edge('src/patients/patients-routes.ts', 'src/features.ts', true);
    expect(backUpImports([...tree, planted], LAYERS)).toEqual(['src/patients/patients-routes.ts (features) → src/features.ts (composition root)']);
  });

  it('fails on the foundation importing a feature, and on a feature importing runtime.ts', () => {
    const planted = [edge('src/platform/http/envelope.ts', 'src/auth/index.ts', true), edge('src/users/users-service.ts', 'src/runtime.ts', true)];
    expect(backUpImports(planted, LAYERS)).toHaveLength(2);
  });

  it('lets a file import its own rung and the rungs below', () => {
    const downward = [
      edge('src/app.ts', 'src/features.ts', true),
      edge('src/portal/portal-service.ts', 'src/prescriptions/index.ts'),
      edge('src/deps.ts', 'src/hi-service/index.ts', true),
      edge('src/hi-service/hi-sandbox-simulator.ts', 'src/identifiers/index.ts'),
      edge('src/platform/secrets.test.ts', 'test/given.ts'),
    ];
    expect(backUpImports(downward, LAYERS)).toEqual([]);
  });
});

describe('the faces check', () => {
  it("fails on the portal importing a prescriptions file that is not the feature's face", () => {
    const planted = edge('src/portal/portal-prescribing.ts', 'src/prescriptions/prescription-lifecycle.ts', true);
    expect(importsPastFaces([...tree, planted], FACED)).toEqual([
      'src/portal/portal-prescribing.ts → src/prescriptions/prescription-lifecycle.ts (outside prescriptions/, past its face src/prescriptions/index.ts)',
    ]);
  });

  it("fails on a test, the bench or app.ts reaching past a face, a store included", () => {
    const planted = [
      edge('test/users/users-create.test.ts', 'src/users/users-store.ts'),
      edge('bench/bench-setup.ts', 'src/webhooks/webhook-dispatcher.ts'),
      edge('src/app.ts', 'src/patients/patients-routes.ts'),
    ];
    expect(importsPastFaces(planted, FACED)).toHaveLength(3);
  });

  it('lets the files inside a folder (its unit tests too) import each other, and anyone import the face', () => {
    const allowed = [
      edge('src/prescriptions/scid.test.ts', 'src/prescriptions/scid.ts'),
      edge('src/prescriptions/prescriptions-service.ts', 'src/prescriptions/prescriptions-store.ts'),
      edge('test/portal/portal-given.ts', 'src/prescriptions/index.ts'),
      edge('src/app.ts', 'src/platform/http/envelope.ts'),
    ];
    expect(importsPastFaces(allowed, FACED)).toEqual([]);
  });
});

describe('the circles check', () => {
  it('fails on files importing each other round a circle through a type-only import', () => {
    const planted = [
      edge('src/users/users-input.ts', 'src/users/user-creation.ts', true),
      edge('src/users/user-creation.ts', 'src/users/users-service.ts'),
      edge('src/users/users-service.ts', 'src/users/users-input.ts'),
    ];
    const src = tree.filter(({ from }) => from.startsWith('src/'));
    expect(fileCircles([...src, ...planted])).toEqual([['src/users/user-creation.ts', 'src/users/users-input.ts', 'src/users/users-service.ts']]);
  });

  it('fails on a circle in bench/ (the tree check reads every scanned folder)', () => {
    const planted = edge('bench/bench-stored-checks.ts', 'bench/bench-endpoints.ts', true);
    expect(fileCircles(tree)).toEqual([]);
    expect(fileCircles([...tree, planted])).toEqual([['bench/bench-endpoints.ts', 'bench/bench-stored-checks.ts']]);
  });

  it('fails on a file importing itself, and passes a chain', () => {
    expect(fileCircles([edge('src/a.ts', 'src/a.ts')])).toEqual([['src/a.ts']]);
    expect(fileCircles([edge('src/a.ts', 'src/b.ts'), edge('src/b.ts', 'src/c.ts'), edge('src/a.ts', 'src/c.ts')])).toEqual([]);
  });

  it('fails on two feature folders depending on each other, one way by a type only', () => {
    const planted = edge('src/patients/patients-store.ts', 'src/prescriptions/index.ts', true);
    expect(featureCircles([...tree, planted], FEATURES)).toEqual([['patients', 'prescriptions']]);
  });
});

describe('the checks over files on disk', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-imports-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };

  it('finds a planted back-up import and a planted import past a face in real files', () => {
    write('src/features.ts', "import { createPatientsContext } from './patients/index.ts';\n");
    write('src/patients/index.ts', "export { createPatientsContext } from './patients-service.ts';\n");
    write('src/patients/patients-service.ts', "import type { Features } from '../features.ts';\nexport const createPatientsContext = () => ({});\n");
    write('src/portal/portal-service.ts', "import {\n  newScid,\n} from '../prescriptions/scid.ts';\n");
    write('src/prescriptions/scid.ts', 'export const newScid = () => 1;\n');
    write('src/prescriptions/index.ts', "export { newScid } from './scid.ts';\n");
    const edges = readImportEdges(root, ['src']);
    expect(backUpImports(edges, LAYERS)).toEqual(['src/patients/patients-service.ts (features) → src/features.ts (composition root)']);
    expect(importsPastFaces(edges, FACED)).toEqual(['src/portal/portal-service.ts → src/prescriptions/scid.ts (outside prescriptions/, past its face src/prescriptions/index.ts)']);
    expect(fileCircles(edges)).toEqual([['src/features.ts', 'src/patients/index.ts', 'src/patients/patients-service.ts']]);
  });
});
