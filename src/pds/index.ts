// The face of the PDS port (DESIGN decision 25): the interface, the sandbox simulator, the
// port for no PDS, the timeout every call is bounded by, and the SCID's form. The contract
// suite (test/pds/pds-contract.ts) lives with the tests: it imports Vitest.
export { type PdsAccepted, type PdsPort, type PdsResult, type PdsSandbox, type PdsSubmission } from './pds-port.ts';
export { NO_PDS_REASON } from './pds-none.ts';
export { isScidFormat } from './pds-scid.ts';
export { createConfiguredPds, type ConfiguredPds } from './pds-configured.ts';
