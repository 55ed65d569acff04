// A form submits once. Each prescribing form carries a one-time id, issued when the form is
// rendered: a random nonce signed (HMAC under the server's secret key) for the session and for
// what the form acts on, so rendering writes nothing and no other session or form can use it.
// The first post of it claims the id (inserts its row; the primary key lets one post win) and
// records what it made; a second post of the same form (a double click, a resubmitted page,
// the back button) creates nothing: it waits for the first to finish and is sent to the same
// result. A post that only re-shows the form (a validation error) releases the claim, so the
// corrected form can be sent with the same id. The new-prescription form's id is also in its
// address (formIdOfAddress): the browser's Back button refetches that address and so returns
// to the same form, whose second post lands on what the first made.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { PortalSession } from '../sso/index.ts';
import { claimPortalForm, findPortalForm, releasePortalForm, settlePortalForm } from './portal-forms-store.ts';

export interface PortalFormsContext {
  db: Kysely<Database>;
  clock: Clock;
  /** Signs form ids (the server's secret key). */
  key: Buffer;
}

/** What a form acts on: creating a prescription for a patient, or changing one (by SCID). */
export interface FormSubject {
  purpose: 'prescribe' | 'cease' | 'cancel' | 'reissue' | 'prepare_draft' | 'approve_draft' | 'decline_draft';
  target: string;
}

export const FORM_OUT_OF_DATE = 'This form is out of date or was not shown in this session. Go back, reload the page and fill it in again.';
export const FORM_STILL_RUNNING = 'This form was already sent and is still being handled. Open the patient\u2019s page in a moment to see the result.';

/**
 * How long a second post waits for the first one's result: 200 checks 50 ms apart (10 s),
 * far beyond a create's usual time; past it the page says the first is still running.
 */
const WAIT_CHECKS = 200;
const WAIT_STEP_MS = 50;

/** Posts of this instance still running, by form id: a second post here awaits the first directly. */
const running = new Map<string, Promise<unknown>>();

function signatureOf(ctx: PortalFormsContext, session: PortalSession, subject: FormSubject, nonce: string): Buffer {
  return createHmac('sha256', ctx.key).update(`portal-form\n${session.sessionHash}\n${subject.purpose}\n${subject.target}\n${nonce}`).digest();
}

export function issueFormId(ctx: PortalFormsContext, session: PortalSession, subject: FormSubject): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${nonce}.${signatureOf(ctx, session, subject, nonce).toString('base64url')}`;
}

function isIssuedFor(ctx: PortalFormsContext, session: PortalSession, subject: FormSubject, formId: string): boolean {
  const [nonce, signature, extra] = formId.split('.');
  if (!nonce || !signature || extra !== undefined) return false;
  const expected = signatureOf(ctx, session, subject, nonce);
  const presented = Buffer.from(signature, 'base64url');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * The form id an address presented, if it was issued to this session for this subject; none
 * (a forged, foreign or absent id) means the page issues a new one, never trusting the address.
 */
export function formIdOfAddress(ctx: PortalFormsContext, session: PortalSession, subject: FormSubject, presented: unknown): string | undefined {
  return typeof presented === 'string' && isIssuedFor(ctx, session, subject, presented) ? presented : undefined;
}

/** What the form `formId` already made (its first post's result), if it was sent. */
export async function resultOfSentForm(ctx: PortalFormsContext, formId: string): Promise<string | undefined> {
  return (await findPortalForm(ctx.db, formId))?.result ?? undefined;
}

/** What one post of a form comes to: the result it made (then the form is spent), or none (a page that shows the form again). */
export interface FormAttempt<T> {
  result: string | undefined;
  outcome: T;
}

export type SubmitOnce<T> = { kind: 'first'; outcome: T } | { kind: 'repeat'; result: string };

/**
 * Runs `act` for the first post of the form `formId`; a later post of it gets the first
 * post's result instead. A form id not issued to this session for this subject is refused.
 */
export async function submitOnce<T>(
  ctx: PortalFormsContext,
  session: PortalSession,
  formId: string,
  subject: FormSubject,
  act: () => Promise<FormAttempt<T>>,
): Promise<SubmitOnce<T>> {
  if (!isIssuedFor(ctx, session, subject, formId)) throw new ApiError('CONFLICT', FORM_OUT_OF_DATE);
  const claim = { form_id: formId, session_hash: session.sessionHash, ...subject };
  for (let check = 0; check < WAIT_CHECKS; check++) {
    if (await claimPortalForm(ctx.db, { ...claim, claimed_at: ctx.clock.now().toISOString() })) {
      return { kind: 'first', outcome: await actOnClaim(ctx, formId, act) };
    }
    const row = await findPortalForm(ctx.db, formId);
    if (row?.result != null) return { kind: 'repeat', result: row.result };
    if (row) await (running.get(formId) ?? new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS)));
  }
  throw new ApiError('CONFLICT', FORM_STILL_RUNNING);
}

async function actOnClaim<T>(ctx: PortalFormsContext, formId: string, act: () => Promise<FormAttempt<T>>): Promise<T> {
  const acting = (async () => {
    let attempt: FormAttempt<T> | undefined;
    try {
      attempt = await act();
      return attempt.outcome;
    } finally {
      if (attempt?.result !== undefined) await settlePortalForm(ctx.db, formId, attempt.result);
      else await releasePortalForm(ctx.db, formId);
    }
  })();
  running.set(formId, acting.catch(() => undefined));
  try {
    return await acting;
  } finally {
    running.delete(formId);
  }
}
