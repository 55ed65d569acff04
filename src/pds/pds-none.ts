// ERX_PDS=none: no PDS is connected (an adapter for the national PDS needs its licensed
// interface). Nothing electronic can be made; the prescriptions feature refuses an electronic
// prescription before it gets here, and this port answers any call that still comes as
// unreachable, saying why.
import { unreachable, type PdsPort } from './pds-port.ts';

/** Why no electronic prescription can be made: shown to prescribers, partners and operators. */
export const NO_PDS_REASON =
  'erx is not connected to a Prescription Delivery Service (ERX_PDS=none): an electronic prescription exists only once a PDS has accepted it, so only paper prescriptions can be written here';

export function createNoPds(): PdsPort {
  const answer = async () => unreachable('connection', NO_PDS_REASON);
  return { name: 'none', submit: answer, cancel: answer, cease: answer, resendToken: answer, readDispensing: answer };
}
