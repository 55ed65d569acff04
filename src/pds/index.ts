// The face of the PDS port (DESIGN decision 25): the interface, the sandbox simulator, the
// port for no PDS, the timeout every call is bounded by, and the SCID's form. The contract
// suite (test/pds/pds-contract.ts) lives with the tests: it imports Vitest.
export {
  refused,
  unreachable,
  type PdsAccepted,
  type PdsDispensing,
  type PdsFailure,
  type PdsPort,
  type PdsRefusal,
  type PdsResult,
  type PdsSandbox,
  type PdsSubmission,
  type PdsUnreachable,
} from './pds-port.ts';
export { createNoPds, NO_PDS_REASON } from './pds-none.ts';
export { createPdsSimulator, SIMULATOR_REFUSALS, type PdsSimulatorOptions } from './pds-simulator.ts';
export { findPdsFault, type PdsFault, type PdsFaultPatient } from './pds-simulator-faults.ts';
export { withPdsTimeout } from './pds-timeout.ts';
export { checkCharacterOf, isScidFormat, isValidScid, newCheckedScid, newScid, SCID_ALPHABET, SCID_LENGTH } from './pds-scid.ts';
export { createConfiguredPds, type ConfiguredPds } from './pds-configured.ts';
