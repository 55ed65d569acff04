// Every feature's context, built once from the infrastructure, in dependency order: a feature
// that needs another receives it here, explicitly. Every surface calls the features' services
// with them: app.ts hands each route and page module its own feature's context; the dispatcher
// and CLI commands take the ones they call.
import { createAuditTrail, type AuditTrail } from './audit/index.ts';
import { createAuthContext, type AuthContext } from './auth/index.ts';
import { createCustomDrugsContext, type CustomDrugsContext } from './custom-drugs/index.ts';
import { createMfaContext, userHoldsFactor, type MfaContext } from './mfa/index.ts';
import { createMedicinesContext, findPbsItem, type MedicinesContext } from './medicines/index.ts';
import { createIdempotencyContext, type IdempotencyContext } from './idempotency/index.ts';
import { createOnboardingContext, readOrganizationPractice, type OnboardingContext } from './onboarding/index.ts';
import { createPatientsContext, type PatientsContext } from './patients/index.ts';
import { createUnitOfWork } from './platform/db/unit-of-work.ts';
import type { BackgroundLoop } from './platform/delivery/index.ts';
import { createPortalContext, type PortalContext } from './portal/index.ts';
import { createPrescriptionsContext, PRESCRIPTION_EVENTS, type PrescriptionsContext } from './prescriptions/index.ts';
import { createRetentionContext, startRetentionSchedule, type RetentionContext } from './retention/index.ts';
import type { Deps } from './deps.ts';
import { createSsoContext, EXPIRED_TOKENS_KEPT_SECONDS, SESSION_MAX_AGE_SECONDS, type SsoContext } from './sso/index.ts';
import { createSystemContext, watchDispatcher, type SystemContext } from './system/index.ts';
import { createUsersContext, type UsersContext } from './users/index.ts';
import { createTokenDeliveryContext, createTokenMessageOutbox, startTokenMessageRunner, type TokenDeliveryContext } from './token-delivery/index.ts';
import { createWebhookOutbox, createWebhooksContext, startWebhookDispatcher, type WebhooksContext } from './webhooks/index.ts';

export interface Features {
  audit: AuditTrail;
  system: SystemContext;
  auth: AuthContext;
  onboarding: OnboardingContext;
  users: UsersContext;
  patients: PatientsContext;
  customDrugs: CustomDrugsContext;
  medicines: MedicinesContext;
  webhooks: WebhooksContext;
  idempotency: IdempotencyContext;
  prescriptions: PrescriptionsContext;
  sso: SsoContext;
  mfa: MfaContext;
  portal: PortalContext;
  retention: RetentionContext;
  tokenDelivery: TokenDeliveryContext;
  /** Every background loop a process runs (`erx serve`, `erx worker`), started and stopped together (platform/delivery/background-loops.ts). */
  backgroundLoops: readonly BackgroundLoop[];
}

export function buildFeatures(deps: Deps): Features {
  const system = createSystemContext(deps);
  // Every service's change commits through the one unit of work; each kind of record a change
  // may leave beside its own rows has its sink in this list: webhook events, token messages and audit entries.
  const outbox = createWebhookOutbox(deps);
  const audit = createAuditTrail(deps);
  // Token messages: a second outbox on the delivery toolkit, sent by their own runner under their own retry table.
  const tokenOutbox = createTokenMessageOutbox(deps);
  const unitOfWork = createUnitOfWork(deps.database, [outbox, tokenOutbox, audit], deps.logger);
  const tokenDelivery = createTokenDeliveryContext(deps, { outbox: tokenOutbox, unitOfWork });
  const auth = createAuthContext(deps, { audit, unitOfWork });
  // The webhook event catalogue lists the events the prescription lifecycle writes (its table names them).
  const webhooks = createWebhooksContext(deps, { unitOfWork, outbox, audit, events: PRESCRIPTION_EVENTS });
  // Built before users: read user says whether the user holds an MFA factor.
  const mfa = createMfaContext(deps, { unitOfWork, audit });
  const users = createUsersContext(deps, { unitOfWork, audit, mfaEnrolment: { isEnrolled: (organizationId, userId) => userHoldsFactor(mfa, { organizationId, userId }) } });
  const onboarding = createOnboardingContext(deps, { webhooks, users, unitOfWork });
  const patients = createPatientsContext(deps, { users, unitOfWork, audit });
  const customDrugs = createCustomDrugsContext(deps, { users, unitOfWork });
  const medicines = createMedicinesContext(deps, { customDrugs, unitOfWork });
  const idempotency = createIdempotencyContext(deps);
  // Prescriptions check a PBS code against the current schedule.
  const pbs = { findPbsItem: (pbsCode: string) => findPbsItem(medicines, pbsCode) };
  // Prescriptions state the organization's practice, as the operator recorded it (onboarding).
  const practices = { findPractice: (organizationId: string) => readOrganizationPractice(onboarding, organizationId) };
  const prescriptions = createPrescriptionsContext(deps, { users, patients, customDrugs, pbs, practices, unitOfWork, audit });
  const sso = createSsoContext(deps, { auth, unitOfWork, audit });
  const portal = createPortalContext(deps, { users, patients, customDrugs, medicines, prescriptions });
  const retention = createRetentionContext(deps, {
    unitOfWork,
    signIns: { expiredTokensKeptSeconds: EXPIRED_TOKENS_KEPT_SECONDS, sessionIdleTimeoutSeconds: sso.idleTimeoutSeconds, sessionMaxAgeSeconds: SESSION_MAX_AGE_SECONDS },
  });
  // The jobs after a commit and the retention schedule: each a loop on the delivery toolkit, all
  // under one start and one stop. A serving process's /readyz requires the dispatcher to run.
  const backgroundLoops: BackgroundLoop[] = [
    {
      name: 'webhook dispatcher',
      start: ({ runnerId }) => {
        const dispatcher = startWebhookDispatcher(webhooks, { id: runnerId });
        watchDispatcher(system, dispatcher);
        return dispatcher;
      },
    },
    { name: 'token messages', start: ({ runnerId }) => startTokenMessageRunner(tokenDelivery, { id: runnerId }) },
    { name: 'retention', start: () => startRetentionSchedule(retention) },
  ];
  return { audit, system, auth, onboarding, users, patients, customDrugs, medicines, webhooks, idempotency, prescriptions, sso, mfa, portal, retention, tokenDelivery, backgroundLoops };
}
