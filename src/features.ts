// Every feature's context, built once from the infrastructure, in dependency order: a feature
// that needs another receives it here, explicitly. Every surface (API routes, portal pages,
// the dispatcher, CLI commands) is handed these and calls the features' services with them.
import { createAuthContext, type AuthContext } from './auth/auth-service.ts';
import { createCustomDrugsContext, type CustomDrugsContext } from './custom-drugs/custom-drugs-service.ts';
import { createIdempotencyContext, type IdempotencyContext } from './idempotency/idempotency-service.ts';
import { createOnboardingContext, type OnboardingContext } from './onboarding/onboarding-service.ts';
import { createPatientsContext, type PatientsContext } from './patients/patients-service.ts';
import { createPortalContext, type PortalContext } from './portal/portal-service.ts';
import { createUnitOfWork } from './platform/db/unit-of-work.ts';
import { createPrescriptionsContext, type PrescriptionsContext } from './prescriptions/prescriptions-service.ts';
import type { Deps } from './runtime.ts';
import { createSsoContext, type SsoContext } from './sso/sso-service.ts';
import { createSystemContext, type SystemContext } from './system/system-service.ts';
import { createUsersContext, type UsersContext } from './users/users-service.ts';
import { createWebhookOutbox, createWebhooksContext, type WebhooksContext } from './webhooks/webhooks-service.ts';

export interface Features {
  system: SystemContext;
  auth: AuthContext;
  onboarding: OnboardingContext;
  users: UsersContext;
  patients: PatientsContext;
  customDrugs: CustomDrugsContext;
  webhooks: WebhooksContext;
  idempotency: IdempotencyContext;
  prescriptions: PrescriptionsContext;
  sso: SsoContext;
  portal: PortalContext;
}

export function buildFeatures(deps: Deps): Features {
  const system = createSystemContext(deps);
  const auth = createAuthContext(deps);
  // Every service's change commits through the one unit of work; each kind of record a change
  // may leave beside its own rows has its sink in this list.
  const outbox = createWebhookOutbox(deps);
  const unitOfWork = createUnitOfWork(deps.database, [outbox], deps.logger);
  const webhooks = createWebhooksContext(deps, { unitOfWork, outbox });
  const onboarding = createOnboardingContext(deps, { webhooks });
  const users = createUsersContext(deps, { unitOfWork });
  const patients = createPatientsContext(deps, { users, unitOfWork });
  const customDrugs = createCustomDrugsContext(deps, { users, unitOfWork });
  const idempotency = createIdempotencyContext(deps);
  const prescriptions = createPrescriptionsContext(deps, { users, patients, customDrugs, unitOfWork });
  const sso = createSsoContext(deps, { auth, unitOfWork });
  const portal = createPortalContext(deps, { users, patients, customDrugs, prescriptions });
  return { system, auth, onboarding, users, patients, customDrugs, webhooks, idempotency, prescriptions, sso, portal };
}
