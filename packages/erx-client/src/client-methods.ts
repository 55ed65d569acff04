// The common operations by name, each one typed call of `request`: the organization and the
// client's user fill the path, so a partner passes only what the call is about. Pages are
// walked by async iterators: a patient's prescriptions (pagination.lastKey) and the
// organization's event feed (`next` while `has_more`).
import type { BodyOf, Call, DataOf, ErxWebhookEvent, Operation, QueryOf, SuccessBody } from './operations.js';

const PATIENTS = '/v1/organizations/{organization_id}/users/{user_id}/patients';
const PATIENT = '/v1/organizations/{organization_id}/users/{user_id}/patients/{patient_id}';
const PRESCRIPTIONS = '/v1/organizations/{organization_id}/users/{user_id}/patients/{patient_id}/prescriptions';
const EVENTS = '/v1/organizations/{organization_id}/events';

/** One page: the patient, the prescriber, the prescriptions, and the envelope's pagination. */
export type PrescriptionPage = DataOf<typeof PRESCRIPTIONS, 'get'> & Pick<SuccessBody<Operation<typeof PRESCRIPTIONS, 'get'>>, 'pagination'>;
export type Prescription = PrescriptionPage['prescriptions'][number];
/** One page of the event feed; each event is exactly a webhook body. */
export type EventPage = Omit<DataOf<typeof EVENTS, 'get'>, 'events'> & { events: ErxWebhookEvent[] };

export interface PageOptions {
  /** Items per page (erx's bounds apply: 1-50 prescriptions, 1-100 events). */
  limit?: number;
  signal?: AbortSignal;
}

/** Yields every item of every page, fetched one page at a time as the caller iterates. */
async function* itemsOf<Page, Item>(pages: AsyncIterable<Page>, items: (page: Page) => readonly Item[]): AsyncGenerator<Item> {
  for await (const page of pages) yield* items(page);
}

export function describeMethods(request: Call, ids: { organizationId: string; userId: string }, currentToken: () => Promise<string>) {
  const org = { organization_id: ids.organizationId };
  const user = { ...org, user_id: ids.userId };
  const limitOf = (options: PageOptions) => (options.limit === undefined ? undefined : String(options.limit));

  async function* prescriptionPages(patientId: string, options: PageOptions = {}): AsyncGenerator<PrescriptionPage> {
    let lastKey: string | undefined;
    do {
      const answer = await request('get', PRESCRIPTIONS, { path: { ...user, patient_id: patientId }, query: { limit: limitOf(options), lastKey }, signal: options.signal });
      yield { ...answer.data, pagination: answer.pagination };
      lastKey = answer.pagination.lastKey ?? undefined;
    } while (lastKey !== undefined);
  }

  async function* eventPages(options: PageOptions & { after?: string } = {}): AsyncGenerator<EventPage> {
    let after = options.after;
    for (;;) {
      const answer = await request('get', EVENTS, { path: org, query: { after, limit: limitOf(options) }, signal: options.signal });
      yield answer.data as EventPage;
      if (!answer.data.has_more || answer.data.next === null) return;
      after = answer.data.next;
    }
  }

  return {
    /** The access token the client holds now (fetched or renewed when due). */
    token: currentToken,
    validate: () => request('get', '/v1/organizations/{organization_id}/validate', { path: org }),
    sso: (body: BodyOf<'/v1/sso', 'post'>) => request('post', '/v1/sso', { body }),
    patients: {
      precheck: (body: BodyOf<`${typeof PATIENTS}/ihi-precheck`, 'post'>) => request('post', `${PATIENTS}/ihi-precheck`, { path: user, body }),
      create: (body: BodyOf<typeof PATIENTS, 'post'>, options: { idempotencyKey?: string } = {}) => request('post', PATIENTS, { path: user, body, ...options }),
      get: (patientId: string) => request('get', PATIENT, { path: { ...user, patient_id: patientId } }),
      update: (patientId: string, body: BodyOf<typeof PATIENT, 'put'>) => request('put', PATIENT, { path: { ...user, patient_id: patientId }, body }),
      prescriptionPages,
      /** Every prescription of the patient, newest first, across pages. */
      prescriptions: (patientId: string, options: PageOptions = {}) => itemsOf(prescriptionPages(patientId, options), (page) => page.prescriptions),
    },
    users: {
      list: (query?: QueryOf<'/v1/organizations/{organization_id}/users', 'get'>) => request('get', '/v1/organizations/{organization_id}/users', { path: org, query }),
      create: (body: BodyOf<'/v1/organizations/{organization_id}/users', 'post'>) => request('post', '/v1/organizations/{organization_id}/users', { path: org, body }),
      get: (userId: string) => request('get', '/v1/organizations/{organization_id}/users/{user_id}', { path: { ...org, user_id: userId } }),
      update: (userId: string, body: BodyOf<'/v1/organizations/{organization_id}/users/{user_id}', 'put'>) =>
        request('put', '/v1/organizations/{organization_id}/users/{user_id}', { path: { ...org, user_id: userId }, body }),
    },
    customDrugs: {
      list: (query?: QueryOf<'/v1/organizations/{organization_id}/custom-drugs', 'get'>) => request('get', '/v1/organizations/{organization_id}/custom-drugs', { path: org, query }),
      create: (body: BodyOf<'/v1/organizations/{organization_id}/custom-drugs', 'post'>) => request('post', '/v1/organizations/{organization_id}/custom-drugs', { path: org, body }),
    },
    events: {
      pages: eventPages,
      /** Every event of the organization for this partner, in commit order, from `after`. */
      all: (options: PageOptions & { after?: string } = {}) => itemsOf(eventPages(options), (page) => page.events),
    },
    partner: {
      webhookEndpoint: () => request('get', '/v1/partner/webhook-endpoint', {}),
      setWebhookEndpoint: (body: BodyOf<'/v1/partner/webhook-endpoint', 'put'>) => request('put', '/v1/partner/webhook-endpoint', { body }),
      rotateWebhookSecret: (body: BodyOf<'/v1/partner/webhook-endpoint/rotate-secret', 'post'> = {}) => request('post', '/v1/partner/webhook-endpoint/rotate-secret', { body }),
      pingWebhookEndpoint: () => request('post', '/v1/partner/webhook-endpoint/ping', {}),
      webhookEvents: (query?: QueryOf<'/v1/partner/webhook-events', 'get'>) => request('get', '/v1/partner/webhook-events', { query }),
      webhookEvent: (eventId: string) => request('get', '/v1/partner/webhook-events/{event_id}', { path: { event_id: eventId } }),
      replayWebhookEvent: (eventId: string) => request('post', '/v1/partner/webhook-events/{event_id}/replay', { path: { event_id: eventId } }),
      recoverWebhookEvents: (body: BodyOf<'/v1/partner/webhook-events/recover', 'post'>) => request('post', '/v1/partner/webhook-events/recover', { body }),
      eventTypes: () => request('get', '/v1/partner/event-types', {}),
    },
  };
}

export type ErxMethods = ReturnType<typeof describeMethods>;
