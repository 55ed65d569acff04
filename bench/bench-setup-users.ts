// The setup step behind the list row: LISTED_USERS users created in the organization through
// the API's own create-user route, a few requests in flight at a time, with progress on stdout.
// Through the route rather than written straight into the database: each row is what a
// partner's create stores (normalised e-mail, roles, timestamps), no second process writes to
// the server's SQLite file, and it costs seconds, not the minutes `erx user create` would
// take starting one CLI process per user.
import { JSON_CONTENT, OWNER_BEARER, LISTED_USERS, USERS_PATH, type BenchEndpoint } from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';
import { resolveRequest, sendForData } from './bench-requests.ts';

/** Create requests in flight at once: enough to keep the server busy, few enough to stay polite. */
const IN_FLIGHT = 16;
const PROGRESS_EVERY = 1_000;

/** Receptionists: no provider record, so no HI lookup; `{n}` keeps each e-mail unique. As the owner: creating users needs manage_users. */
const CREATE_LISTED_USER: BenchEndpoint = {
  name: 'setup: create a user to list',
  method: 'POST',
  path: USERS_PATH,
  headers: { ...OWNER_BEARER, ...JSON_CONTENT },
  body: { given_name: 'Bench', family_name: 'User {n}', email: 'bench-user-{n}@bench.example', access_roles: ['receptionist'] },
  bodyVaries: true,
  baseline: 'POST',
};

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Each create must answer 201 with a user_id and no warning; the step adds no variable. */
export async function createUsersToList(baseUrl: string, variables: BenchVariables): Promise<BenchVariables> {
  const request = resolveRequest(CREATE_LISTED_USER, variables);
  const startedAt = performance.now();
  let started = 0;
  let created = 0;
  let failed = false;
  const createOne = async () => {
    const data = (await sendForData(baseUrl, request, 201)) as { user_id?: unknown; warning?: unknown };
    if (typeof data.user_id !== 'string' || data.warning !== undefined) {
      throw new Error(`${request.name}: unexpected answer ${JSON.stringify(data).slice(0, 300)}`);
    }
    created += 1;
    if (created % PROGRESS_EVERY === 0 || created === LISTED_USERS) {
      const seconds = (performance.now() - startedAt) / 1000;
      log(`  setup: ${created} of ${LISTED_USERS} users created (${seconds.toFixed(1)} s, ${Math.round(created / seconds)}/s)`);
    }
  };
  const worker = async () => {
    while (!failed && started < LISTED_USERS) {
      started += 1;
      try {
        await createOne();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  log(`  setup: creating ${LISTED_USERS} users through POST ${USERS_PATH}, ${IN_FLIGHT} at a time`);
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return {};
}
