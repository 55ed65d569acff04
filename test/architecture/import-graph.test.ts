// The architecture test's checker, tested: it must fail on a planted import that runs back up
// the layers, on one past a feature's face and on a circle, type-only imports included; over
// synthetic import lists, over the real tree with one planted import, and over files written
// to a temporary directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backUpImports, faceExports, featureCircles, fileCircles, importsPastFaces, parseImports, parseNamedStatements, readImportEdges, type ImportEdge, unusedFaceNames } from './import-graph.ts';
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

  it('fails on app.ts, features.ts, another feature, the CLI or scripts/ reaching past a face, a store included', () => {
    const planted = [
      edge('src/app.ts', 'src/patients/patients-routes.ts'),
      edge('src/features.ts', 'src/webhooks/webhook-outbox.ts'),
      edge('src/users/users-service.ts', 'src/audit/audit-store.ts'),
      edge('src/cli/webhook-commands.ts', 'src/webhooks/webhook-dispatcher.ts'),
      edge('scripts/generate-client.ts', 'src/prescriptions/prescriptions-schemas.ts'),
    ];
    expect(importsPastFaces(planted, FACED)).toHaveLength(5);
  });

  it("lets the tests (test/, its shared helpers, unit tests beside the code) and the bench import a feature's own files", () => {
    const allowed = [
      edge('test/webhooks/webhook-lease.test.ts', 'src/webhooks/webhook-dispatcher.ts'),
      edge('test/given.ts', 'src/users/users-store.ts'),
      edge('bench/bench-setup.ts', 'src/webhooks/webhook-dispatcher.ts'),
      edge('src/patients/ihi-search.test.ts', 'src/hi-service/hi-demo-fixtures.ts'),
    ];
    expect(importsPastFaces(allowed, FACED)).toEqual([]);
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

describe('the face names check', () => {
  const face = 'src/webhooks/index.ts';
  const faceText = [
    "export { createWebhooksContext, type WebhooksContext } from './webhooks-service.ts';",
    "export {",
    "  signWebhookPayload as sign, // renamed on the face",
    "  type WebhookOutbox,",
    "} from './webhook-outbox.ts';",
    "export type { WebhookHttpClient } from './webhook-http-attempt.ts';",
    "export const PLANTED_UNUSED = 1;",
  ].join('\n');
  const users = (extra: Record<string, string> = {}) =>
    new Map(
      Object.entries({
        [face]: faceText,
        'src/features.ts': "import { createWebhooksContext, type WebhooksContext } from './webhooks/index.ts';",
        'src/cli/webhook-commands.ts': "import type { WebhookOutbox } from '../webhooks/index.ts';",
        'scripts/sign.ts': "import {\n  sign as signIt,\n} from '../src/webhooks/index.ts';",
        'src/token-delivery/sender.ts': "export { type WebhookHttpClient } from '../webhooks/index.ts';",
        ...extra,
      }),
    );

  it('reads named imports, renames, type-only names and re-exports, and the names a face exports', () => {
    expect(parseNamedStatements("import { a, b as c, type T } from './x.ts';\nexport type { U } from './y.ts';\nimport * as ns from './z.ts';")).toEqual([
      { kind: 'import', specifier: './x.ts', names: [{ imported: 'a', local: 'a', typeOnly: false }, { imported: 'b', local: 'c', typeOnly: false }, { imported: 'T', local: 'T', typeOnly: true }] },
      { kind: 'export', specifier: './y.ts', names: [{ imported: 'U', local: 'U', typeOnly: true }] },
      { kind: 'import', specifier: './z.ts', names: '*' },
    ]);
    expect(faceExports(face, faceText)).toEqual({ names: ['createWebhooksContext', 'WebhooksContext', 'sign', 'WebhookOutbox', 'WebhookHttpClient', 'PLANTED_UNUSED'], problems: [] });
  });

  it('fails on a planted face name nothing in src/ or scripts/ outside the folder uses, naming the face and the name', () => {
    expect(unusedFaceNames(users(), [face])).toEqual(['src/webhooks/index.ts: PLANTED_UNUSED']);
  });

  it('does not count tests, the bench, unit tests beside the code or the folder itself as users', () => {
    const notUsers = {
      'test/webhooks/planted.test.ts': "import { PLANTED_UNUSED } from '../../src/webhooks/index.ts';",
      'bench/planted.ts': "import { PLANTED_UNUSED } from '../src/webhooks/index.ts';",
      'src/users/planted.test.ts': "import { PLANTED_UNUSED } from '../webhooks/index.ts';",
      'src/webhooks/webhook-planted.ts': "import { PLANTED_UNUSED } from './index.ts';",
    };
    expect(unusedFaceNames(users(notUsers), [face])).toEqual(['src/webhooks/index.ts: PLANTED_UNUSED']);
    expect(unusedFaceNames(users({ 'src/app.ts': "import { PLANTED_UNUSED } from './webhooks/index.ts';" }), [face])).toEqual([]);
  });

  it('refuses a star re-export on a face, and reports every name of a face nobody imports', () => {
    const starred = users({ [face]: `${faceText}\nexport * from './webhook-retry.ts';` });
    expect(unusedFaceNames(starred, [face])).toEqual([
      "src/webhooks/index.ts: export * from './webhook-retry.ts' (name what the face hands out)",
      'src/webhooks/index.ts: PLANTED_UNUSED',
    ]);
    expect(unusedFaceNames(new Map([[face, faceText]]), [face])).toHaveLength(6);
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
