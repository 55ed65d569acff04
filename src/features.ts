// Every feature's context, built once from the infrastructure, in dependency order: a feature
// that needs another receives it here, explicitly. Every surface calls the features' services
// with them: app.ts hands each route and page module its own feature's context; the dispatcher
// and CLI commands take the ones they call.
import { createAuditTrail, createSecurityAlertRetentionStep, createSecurityAlerts, type AuditTrail, type SecurityAlerts } from './audit/index.ts';
import { createAuthContext, type AuthContext } from './auth/index.ts';
import { createCustomDrugsContext, type CustomDrugsContext } from './custom-drugs/index.ts';
import { createMfaContext, createMfaRetentionSteps, userHoldsFactor, type MfaContext } from './mfa/index.ts';
import { createMedicinesContext, findPbsItem, type MedicinesContext } from './medicines/index.ts';
import { createIdempotencyContext, createIdempotencyRetentionStep, type IdempotencyContext } from './idempotency/index.ts';
import { createOnboardingContext, readOrganizationPractice, type OnboardingContext } from './onboarding/index.ts';
import { createPatientsContext, type PatientsContext } from './patients/index.ts';
import type { KeptForEver, RetentionStep } from './platform/db/retention-step.ts';
import { createUnitOfWork } from './platform/db/unit-of-work.ts';
import type { BackgroundLoop } from './platform/delivery/index.ts';
import { createPortalContext, createPortalFormsRetentionStep, type PortalContext } from './portal/index.ts';
import { createPdsSubmissionOutbox, createPrescriptionsContext, PRESCRIPTION_EVENTS, startPdsSubmissionRunner, tokenPageUrlOf, type PrescriptionsContext } from './prescriptions/index.ts';
import { createConfiguredPds } from './pds/index.ts';
import { newId } from './platform/ids.ts';
import { createRtpmContext, createRtpmRetentionStep, type RtpmContext } from './rtpm/index.ts';
import { createRetentionContext, startRetentionSchedule, type RetentionContext } from './retention/index.ts';
import type { Deps } from './deps.ts';
import { createSsoContext, createSsoRetentionSteps, type SsoContext } from './sso/index.ts';
import { createSystemContext, watchDispatcher, type SystemContext } from './system/index.ts';
import { createUsersContext, type UsersContext } from './users/index.ts';
import { createTokenDeliveryContext, createTokenMessageOutbox, createTokenMessageRetentionStep, startTokenMessageRunner, type TokenDeliveryContext } from './token-delivery/index.ts';
import { createWebhookOutbox, createWebhookRetentionSteps, createWebhooksContext, startWebhookDispatcher, type WebhooksContext } from './webhooks/index.ts';

export interface Features {
  audit: AuditTrail;
  /** Refusals an outsider can cause, counted apart from the audit chain. */
  securityAlerts: SecurityAlerts;
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
  rtpm: RtpmContext;
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
  // PDS submissions: a job written with the Pending prescription, attempted after its commit.
  const pdsOutbox = createPdsSubmissionOutbox(deps);
  const unitOfWork = createUnitOfWork(deps.database, [outbox, tokenOutbox, pdsOutbox, audit], deps.logger);
  // A token message holds no link: the runner derives the token page's URL when it sends (prescriptions own the key's derivation; built below, asked only once running).
  const tokenDelivery = createTokenDeliveryContext(deps, { outbox: tokenOutbox, unitOfWork, audit, tokenPageUrlOf: (prescriptionId) => tokenPageUrlOf(prescriptions, prescriptionId) });
  const securityAlerts = createSecurityAlerts({ database: deps.database, clock: deps.clock, retentionDays: deps.config.retentionSecurityAlertDays });
  const auth = createAuthContext(deps, { audit, unitOfWork, securityAlerts });
  // The webhook event catalogue lists the events the prescription lifecycle writes (its table names them).
  const webhooks = createWebhooksContext(deps, { unitOfWork, outbox, audit, events: PRESCRIPTION_EVENTS });
  // Built before users: read user says whether the user holds an MFA factor.
  const mfa = createMfaContext(deps, { unitOfWork, audit });
  const users = createUsersContext(deps, { unitOfWork, audit, mfaEnrolment: { isEnrolled: (organizationId, userId) => userHoldsFactor(mfa, { organizationId, userId }) } });
  const onboarding = createOnboardingContext(deps, { webhooks, users, unitOfWork });
  const patients = createPatientsContext(deps, { users, unitOfWork, audit });
  const customDrugs = createCustomDrugsContext(deps, { users, unitOfWork });
  const medicines = createMedicinesContext(deps, { customDrugs, unitOfWork });
  const idempotency = createIdempotencyContext(deps, { audit });
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
  const sso = createSsoContext(deps, { auth, unitOfWork, audit, securityAlerts });
  // Real-time prescription monitoring before a monitored medicine (ERX_RTPM): checks, acknowledgements, attestations.
  const rtpm = createRtpmContext(deps, { audit });
  const portal = createPortalContext(deps, { users, patients, customDrugs, medicines, prescriptions, rtpm, mfa });
  const retention = createRetentionContext(deps, { unitOfWork, steps: retentionStepsOf(deps.config, sso), keptForEver: KEPT_FOR_EVER });
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
    { name: 'PDS submissions', start: () => startPdsSubmissionRunner(prescriptions) },
    { name: 'retention', start: () => startRetentionSchedule(retention) },
  ];
  return { audit, securityAlerts, system, auth, onboarding, users, patients, customDrugs, medicines, webhooks, idempotency, prescriptions, sso, mfa, portal, retention, tokenDelivery, rtpm, backgroundLoops };
}

/**
 * What each feature keeps only for a while: its own retention steps, registered here as the
 * sinks are, run in this order (the webhook history before its response bodies; sessions before
 * the form ids they leave behind). Each step names the tables it prunes.
 */
export function retentionStepsOf(config: Deps['config'], sso: Pick<SsoContext, 'idleTimeoutSeconds'>): RetentionStep[] {
  return [
    ...createWebhookRetentionSteps({ historyDays: config.retentionWebhookDays, bodiesDays: config.retentionBodiesDays }),
    createIdempotencyRetentionStep(),
    ...createSsoRetentionSteps(sso),
    createPortalFormsRetentionStep(),
    createTokenMessageRetentionStep(config.retentionTokenMessageDays),
    ...createMfaRetentionSteps(),
    createSecurityAlertRetentionStep(config.retentionSecurityAlertDays),
    createRtpmRetentionStep(),
  ];
}

/**
 * The tables no retention step prunes, each with its reason: a new table gets a step above or
 * a line here (test/architecture/retention-decisions.test.ts fails until it has one).
 */
export const KEPT_FOR_EVER: readonly KeptForEver[] = [
  // onboarding
  { table: 'partners', because: 'a partner is its credentials and endpoint, named by its events and audit entries; a partner is withdrawn (erx org disable-partner), never deleted' },
  { table: 'organizations', because: 'each organization is a tenant that every other row names; organizations are never deleted' },
  { table: 'organization_partners', because: 'which partners an organization enabled: a few rows per organization, changed in place, not accumulated' },
  // users
  { table: 'users', because: 'users are disabled, never deleted: prescriptions and audit entries name their author' },
  { table: 'provider_records', because: "a prescriber's verified HPI-I, one row per provider, updated in place; prescriptions rely on it" },
  // mfa
  { table: 'mfa_factors', because: "a user's passkeys and TOTP secret live as long as the user (never deleted); removed by the user or a reset" },
  { table: 'mfa_recovery_codes', because: "a user's ten recovery codes (hashed), replaced whole when regenerated; bounded per user, not by time" },
  // patients, custom drugs, prescriptions: the health record
  { table: 'patients', because: "part of the health record prescriptions are written against; health-records law keeps it at least 7 years, and disposal is the clinic's records policy, not a timer" },
  { table: 'custom_drugs', because: 'prescriptions written from a custom drug name it; a deleted drug stays as those prescriptions knew it' },
  { table: 'prescriptions', because: "a prescription is a health record (kept at least 7 years by law, longer for minors); disposal is the operator's records policy, not a timer" },
  { table: 'prescriber_script_numbers', because: "one counter per prescriber: a prescriber's script numbers must never repeat" },
  { table: 'pds_submissions', because: "one row per electronic prescription: the record of its submission to the PDS (attempts, the PDS's refusal), part of the prescription's record" },
  { table: 'pds_simulator_scripts', because: "the sandbox PDS's own records (sandbox only): what it holds, as a real PDS's records are not erx's to prune" },
  { table: 'prescription_drafts', because: "a draft and its approval or decline are part of the prescription's record (who prepared it, who approved it)" },
  // audit
  { table: 'audit_entries', because: 'the audit trail is kept at least 7 years; only `erx audit prune` removes entries past ERX_AUDIT_RETENTION_YEARS, on the operator\'s decision, as a chained entry of its own' },
  { table: 'audit_chain', because: "the audit chain's anchor and head: one row" },
  // webhooks
  { table: 'retention_marks', because: 'one row per pruned kind (the highest webhook event id pruned): what tells a pruned event from an unknown one' },
  // medicines
  { table: 'pbs_schedules', because: 'one row per imported monthly PBS schedule: a dozen a year, the record of which schedule prescriptions were checked against' },
  { table: 'pbs_items', because: 'the current PBS schedule, replaced whole by each import: bounded by the schedule, not by time' },
  { table: 'pbs_item_words', because: "the current schedule's search words, replaced with it by each import" },
];
