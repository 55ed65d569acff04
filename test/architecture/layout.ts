// The layout the architecture test holds, as data: the feature folders, the folders with a face,
// and the layers from the foundation up. A new feature folder goes in FEATURES; a new top-level
// file in src/ goes on the rung of what it may import.
import type { Layer } from './import-graph.ts';

/** Where the test reads imports from. */
export const SCANNED = ['src', 'migrations', 'test', 'bench', 'scripts', 'packages/erx-client/src'];

/** The feature folders: each owns its routes, schemas, service and storage. */
export const FEATURES = ['audit', 'auth', 'controlled-medicines', 'custom-drugs', 'idempotency', 'medicines', 'mfa', 'onboarding', 'patients', 'portal', 'prescriptions', 'retention', 'rtpm', 'sso', 'system', 'token-delivery', 'users', 'webhooks'];

/**
 * Folders with one face (index.ts) for code in src/ and scripts/ outside them: the features, and the
 * two foundations that have one. Tests and the bench may import their own files too
 * (MAY_PASS_FACES in import-graph.ts); a face exports only what src/ and scripts/ use.
 */
export const FACED = [...FEATURES, 'hi-service', 'pds', 'identifiers'];

/** Bottom first: a file may import its own rung and the rungs below, never one above. */
export const LAYERS: Layer[] = [
  // The partners' client stands alone: it imports nothing of erx (its types are generated).
  { name: 'partner client package', paths: ['packages/erx-client/src/'] },
  { name: 'foundation', paths: ['src/platform/', 'src/identifiers/', 'src/config.ts', 'src/config-readers.ts', 'src/config-national.ts', 'src/config-settings.ts', 'migrations/'] },
  { name: 'outside-service ports', paths: ['src/hi-service/', 'src/pds/'] },
  { name: 'what features are built from', paths: ['src/deps.ts', 'src/route-module.ts'] },
  { name: 'features', paths: FEATURES.map((feature) => `src/${feature}/`) },
  { name: 'composition root', paths: ['src/features.ts'] },
  { name: 'HTTP surface and runtime', paths: ['src/app.ts', 'src/runtime.ts', 'src/hi-runtime.ts', 'src/server.ts'] },
  { name: 'CLI and tools', paths: ['src/cli/', 'src/main.ts', 'scripts/'] },
  // Unit tests beside the code (src/**/*.test.ts) sit here too: they may use the test helpers.
  { name: 'tests and bench', paths: ['test/', 'bench/', '*.test.ts'] },
];
