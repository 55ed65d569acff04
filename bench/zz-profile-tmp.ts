// temporary: profile one row of erx serve (not committed)
import autocannon from 'autocannon';
import { API_ENDPOINTS } from './bench-endpoints.ts';
import { requestAccessToken, seedSandboxCredentials } from './bench-credentials.ts';
import { prepareApiEnvironment } from './bench-environment.ts';
import { findFreePort, startChildServer } from './bench-processes.ts';
import { resolveRequest } from './bench-requests.ts';
import { BENCH_SETUP_STEPS } from './bench-setup.ts';
const rowName = process.argv[2] ?? 'precheck';
const seconds = Number(process.argv[3] ?? 10);
const prof = process.argv[4] !== 'noprof';
const port = await findFreePort();
const environment = await prepareApiEnvironment(port, { metrics: true });
const args = prof ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof', 'bin/erx.js', 'serve'] : ['bin/erx.js', 'serve'];
const server = await startChildServer({ name: 'erx', args, env: environment.env, port, readyPath: '/ready' });
try {
  const credentials = await seedSandboxCredentials(environment.env);
  const withToken = { ...credentials, access_token: await requestAccessToken(server.baseUrl, credentials) };
  let variables: any = withToken;
  for (const step of BENCH_SETUP_STEPS.slice(0, 3)) variables = { ...variables, ...(await step(server.baseUrl, variables)) };
  const row = API_ENDPOINTS.find((r) => r.name === rowName)!;
  const req = resolveRequest(row, variables);
  const result = await autocannon({ url: server.baseUrl + req.path, method: req.method as any, headers: req.headers, body: req.nextBody(), connections: 10, duration: seconds });
  console.log(rowName, result.requests.average, 'req/s', 'non2xx', result.non2xx);
} finally {
  await server.stop();
  await environment.remove();
}
