// Every feature's context, built once from the infrastructure, in dependency order: a feature
// that needs another receives it here, explicitly. Every surface calls the features' services
// with them: app.ts hands each route and page module its own feature's context; the dispatcher
// and CLI commands take the ones they call.
import { createAuditTrail, type AuditTrail } from './audit/index.ts';
import { createAuthContext, type AuthContext } from './auth/index.ts';
import { createCustomDrugsContext, type CustomDrugsContext } from './custom-drugs/index.ts';
import { createMedicinesContext, findPbsItem, type MedicinesContext } from './medicines/index.ts';
import { createIdempotencyContext, type IdempotencyContext } from './idempotency/index.ts';
import { createOnboardingContext, readOrganizationPractice, type OnboardingContext } from './onboarding/index.ts';
import { createPatientsContext, type PatientsContext } from './patients/index.ts';
import { createUnitOfWork } from './platform/db/unit-of-work.ts';
import { createPortalContext, type PortalContext } from './portal/index.ts';
import { createPdsSubmissionOutbox, createPrescriptionsContext, type PrescriptionsContext } from './prescriptions/index.ts';
import { createConfiguredPds } from './pds/index.ts';
import { newId } from './platform/ids.ts';
import { createRetentionContext, type RetentionContext } from './retention/index.ts';
import type { Deps } from './deps.ts';
import { createSsoContext, EXPIRED_TOKENS_KEPT_SECONDS, SESSION_MAX_AGE_SECONDS, type SsoContext } from './sso/index.ts';
import { createSystemContext, type SystemContext } from './system/index.ts';
import { createUsersContext, type UsersContext } from './users/index.ts';
import { createTokenDeliveryContext, createTokenMessageOutbox, type TokenDeliveryContext } from './token-delivery/index.ts';
import { createWebhookOutbox, createWebhooksContext, type WebhooksContext } from './webhooks/index.ts';

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
  portal: PortalContext;
  retention: RetentionContext;
  tokenDelivery: TokenDeliveryContext;
}

export function buildFeatures(deps: Deps): Features {
  const system = createSystemContext(deps);
  // Every service's change commits through the one unit of work; each kind of record a change
  // may leave beside its own rows has its sink in this list: webhook events, token messages and audit entries.
  const outbox = createWebhookOutbox(deps);
  const audit = createAuditTrail(deps);
  // Token messages: a sibling outbox, sent by their own runner under the webhook retry rule.
  const tokenOutbox = createTokenMessageOutbox(deps);
  // PDS submissions: a job written with the Pending prescription, attempted after its commit.
  const pdsOutbox = createPdsSubmissionOutbox(deps);
  const unitOfWork = createUnitOfWork(deps.database, [outbox, tokenOutbox, pdsOutbox, audit], deps.logger);
  const tokenDelivery = createTokenDeliveryContext(deps, { outbox: tokenOutbox, unitOfWork });
  const auth = createAuthContext(deps, { audit, unitOfWork });
  const webhooks = createWebhooksContext(deps, { unitOfWork, outbox, audit });
  const users = createUsersContext(deps, { unitOfWork, audit });
  const onboarding = createOnboardingContext(deps, { webhooks, users, unitOfWork });
  const patients = createPatientsContext(deps, { users, unitOfWork, audit });
  const customDrugs = createCustomDrugsContext(deps, { users, unitOfWork });
  const medicines = createMedicinesContext(deps, { customDrugs, unitOfWork });
  const idempotency = createIdempotencyContext(deps);
  // Prescriptions check a PBS code against the current schedule.
  const pbs = { findPbsItem: (pbsCode: string) => findPbsItem(medicines, pbsCode) };
  // Prescriptions state the organization's practice, as the operator recorded it (onboarding).
  const practices = { findPractice: (organizationId: string) => readOrganizationPractice(onboarding, organizationId) };
  const configuredPds = deps.pds ?? createConfiguredPds(deps.config, deps.database, deps.clock);
  const pds = {
    port: configuredPds.port,
    waitMs: deps.config.pdsWaitMs,
    timeoutMs: deps.config.pdsTimeoutMs,
    outbox: pdsOutbox,
    runnerId: newId(),
    logger: deps.logger,
    // Sandbox fault injection: the process dies after the PDS accepted and before erx commits (test/pds/pds-crash.test.ts).
    afterAccepted: deps.config.sandboxKillAfterPdsSubmit ? () => process.kill(process.pid, 'SIGKILL') : undefined,
    inFlight: new Set<Promise<void>>(),
  };
  const prescriptions = createPrescriptionsContext(deps, { users, patients, customDrugs, pbs, practices, unitOfWork, audit, pds, pdsSandbox: configuredPds.sandbox });
  const sso = createSsoContext(deps, { auth, unitOfWork, audit });
  const portal = createPortalContext(deps, { users, patients, customDrugs, medicines, prescriptions });
  const retention = createRetentionContext(deps, {
    unitOfWork,
    signIns: { expiredTokensKeptSeconds: EXPIRED_TOKENS_KEPT_SECONDS, sessionIdleTimeoutSeconds: sso.idleTimeoutSeconds, sessionMaxAgeSeconds: SESSION_MAX_AGE_SECONDS },
  });
  return { audit, system, auth, onboarding, users, patients, customDrugs, medicines, webhooks, idempotency, prescriptions, sso, portal, retention, tokenDelivery };
}
