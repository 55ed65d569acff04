// The Prescription Delivery Service (PDS) as erx sees it (DESIGN decision 25): the service that
// takes an electronic prescription, assigns its SCID and hands the script to the pharmacy that
// presents its token. Every call answers with a typed result, never a thrown string: accepted,
// refused by the PDS with its code and message (do not retry), or unreachable (retry later; a
// timeout is one: the PDS may or may not have the script, and the submission's idempotency key,
// erx's unique id, makes the retry safe). An adapter for the national PDS implements this one
// interface; test/pds/pds-contract.ts is the suite it must pass unchanged.
export interface PdsRefusal {
  ok: false;
  outcome: 'refused';
  /** The PDS's own code for the refusal. */
  code: string;
  /** Its message, shown to the prescriber and the partner. */
  message: string;
}

export interface PdsUnreachable {
  ok: false;
  outcome: 'unreachable';
  /** 'timeout': no answer within ERX_PDS_TIMEOUT_MS; 'connection': no connection, or the PDS said it is unavailable. */
  reason: 'timeout' | 'connection';
  detail: string;
}

export type PdsFailure = PdsRefusal | PdsUnreachable;
export type PdsResult<Value> = ({ ok: true } & Value) | PdsFailure;

/**
 * What a submission sends: erx's unique id of the prescription (the idempotency key), whom it
 * is for, what the PDS counts (one item, its repeats), and the script's whole legal content
 * (the prescriptions feature's PrescriptionLegalContent) as the script's body.
 */
export interface PdsSubmission {
  uniqueId: string;
  patient: { ihi: string | null; name: string; dateOfBirth: string };
  repeats: number;
  /**
   * An electronic transfer paper script: printed and handed to the patient, its SCID as a
   * barcode the pharmacy scans; no token goes to anyone. False: an electronic prescription
   * whose token erx sends.
   */
  paperScript: boolean;
  content: Readonly<Record<string, unknown>>;
}

export interface PdsAccepted {
  scid: string;
  /** One token per item (a prescription is one item today): the pharmacy downloads the script with it. */
  tokens: string[];
}

/** The dispensing state of a script as the PDS reports it. */
export interface PdsDispensing {
  /** Supplies dispensed so far (the original supply and each repeat). */
  suppliesDispensed: number;
  repeatsRemaining: number;
  /** ISO 8601, or null before the first supply. */
  lastDispensedAt: string | null;
}

export interface PdsPort {
  /** Which PDS this is: 'simulator' or an adapter's name; 'none' when no PDS is connected. */
  readonly name: string;
  /** Submits a prescription; the same unique id submitted again answers with the same SCID (idempotent). */
  submit(submission: PdsSubmission, signal?: AbortSignal): Promise<PdsResult<PdsAccepted>>;
  /** Cancels a script (made in error); refused once any supply was dispensed. */
  cancel(scid: string, signal?: AbortSignal): Promise<PdsResult<object>>;
  /** Ceases a script (no longer needed): allowed after a dispense; its remaining repeats cannot be dispensed. */
  cease(scid: string, signal?: AbortSignal): Promise<PdsResult<object>>;
  /** Sends the script's token again (the SCID stays): the token to deliver. */
  resendToken(scid: string, signal?: AbortSignal): Promise<PdsResult<{ tokens: string[] }>>;
  readDispensing(scid: string, signal?: AbortSignal): Promise<PdsResult<PdsDispensing>>;
}

/** What only the sandbox PDS offers: a pharmacy's dispense, so the sandbox can show one. */
export interface PdsSandbox {
  /** Dispenses the next supply (the original, then each repeat); refused when none is left or the script is cancelled or ceased. */
  dispense(scid: string, at: string): Promise<PdsResult<PdsDispensing>>;
}

export const refused = (code: string, message: string): PdsRefusal => ({ ok: false, outcome: 'refused', code, message });
export const unreachable = (reason: PdsUnreachable['reason'], detail: string): PdsUnreachable => ({ ok: false, outcome: 'unreachable', reason, detail });
