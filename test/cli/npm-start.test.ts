// `npm start` = `erx serve --seed-if-empty`: the first start on an empty data directory seeds
// the sandbox and prints working credentials; later starts do not seed again.
import { afterAll, describe, expect, it } from 'vitest';
import { createCliEnvironment, spawnServer } from './cli-helpers.ts';

const cli = createCliEnvironment();
afterAll(() => cli.cleanup());

async function stop(child: import('node:child_process').ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function printed(output: string, label: string): string {
  const match = new RegExp(`${label}:\\s+(\\S+)`).exec(output);
  if (!match?.[1]) throw new Error(`"${label}" not printed:\n${output}`);
  return match[1];
}

describe('npm start on an empty data directory', () => {
  it('seeds once, prints credentials that obtain a token, and does not seed on the next start', async () => {
    const first = await spawnServer(cli.env, ['--seed-if-empty']);
    const output = first.output();
    expect(output).toContain('Sandbox credentials');
    const headers = {
      'content-type': 'application/json',
      'x-partner-id': printed(output, 'partner_id'),
      'x-partner-secret': printed(output, 'partner_secret'),
      'x-organization-id': printed(output, 'organization_id'),
      'x-organization-secret': printed(output, 'organization_secret'),
      'x-user-id': printed(output, 'prescriber user_id'),
    };
    const response = await fetch(`${first.url}/v1/token`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ grantType: 'client_credentials', scope: ['create:patient'] }),
    });
    expect(response.status).toBe(200);
    await stop(first.child);

    const second = await spawnServer(cli.env, ['--seed-if-empty']);
    expect(second.output()).not.toContain('Sandbox credentials');
    await stop(second.child);
  });
});
