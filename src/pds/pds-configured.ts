// The configured PDS (ERX_PDS): the sandbox simulator, with the HI fixture file's patients'
// faults, or none. Either is bounded by ERX_PDS_TIMEOUT_MS. config.ts refuses the simulator in
// production.
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import { loadHiSandboxFixtures } from '../hi-service/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { createNoPds } from './pds-none.ts';
import type { PdsPort, PdsSandbox } from './pds-port.ts';
import { createPdsSimulator } from './pds-simulator.ts';
import { withPdsTimeout } from './pds-timeout.ts';

/** The PDS erx talks to; `sandbox` is there only when the PDS is the simulator (a dispense can be made). */
export interface ConfiguredPds {
  port: PdsPort;
  sandbox: PdsSandbox | undefined;
}

export function createConfiguredPds(config: Pick<Config, 'pdsAdapter' | 'pdsTimeoutMs' | 'hiFixtures'>, db: Kysely<Database>, clock: Clock): ConfiguredPds {
  if (config.pdsAdapter === 'none') return { port: createNoPds(), sandbox: undefined };
  const simulator = createPdsSimulator({ db, patients: loadHiSandboxFixtures(config.hiFixtures).patients, now: () => clock.now() });
  return { port: withPdsTimeout(simulator, config.pdsTimeoutMs), sandbox: simulator };
}
