// The webhook surfaces (the dispatcher loop and the CLI commands) call the feature's services
// and never a store: the queries stay behind the services that own their transactions.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SURFACES = ['src/webhooks/webhook-dispatcher.ts', 'src/cli/webhooks-commands.ts', 'src/cli/webhook-history-commands.ts', 'src/cli/server-commands.ts', 'src/cli/onboarding-commands.ts'];

function importsOf(file: string): string[] {
  const source = fs.readFileSync(path.resolve(file), 'utf8');
  return [...source.matchAll(/^\s*import\s[^;]*?from\s+'([^']+)'/gms)].map((match) => match[1]!);
}

describe('webhook surfaces', () => {
  it.each(SURFACES)('%s imports no *-store.ts', (file) => {
    const imports = importsOf(file);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((specifier) => /-store\.ts$/.test(specifier))).toEqual([]);
  });

  it('src/platform imports no feature folder (the PostgreSQL listener included)', () => {
    const features = ['auth', 'cli', 'custom-drugs', 'hi-service', 'identifiers', 'onboarding', 'patients', 'portal', 'prescriptions', 'system', 'users', 'webhooks'];
    const files = fs.readdirSync('src/platform', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files).toContain(path.join('db', 'postgres-listener.ts'));
    for (const file of files) {
      const wrong = importsOf(path.join('src/platform', file)).filter((s) => features.some((f) => s.includes(`/${f}/`) || s.startsWith(`../${f}`)));
      expect(wrong, file).toEqual([]);
    }
  });
});
