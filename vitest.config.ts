import { defineConfig } from 'vitest/config';

// Unit tests sit beside their code; integration tests build the app on a fresh database
// per file (see test/test-app.ts). Two workers fit the two cores of the build machines.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
