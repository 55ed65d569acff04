// Applies the numbered, forward-only migrations in migrations/ (the same set on both
// dialects). Listed explicitly so a bundled or type-stripped build needs no directory scan.
import { Migrator, type Kysely, type Migration } from 'kysely';
import type { DatabaseHandle } from './database.ts';
import * as foundation from '../../../migrations/0001-foundation.ts';
import * as patients from '../../../migrations/0002-patients.ts';
import * as customDrugs from '../../../migrations/0003-custom-drugs.ts';
import * as usersProviders from '../../../migrations/0004-users-providers.ts';
import * as webhookEvents from '../../../migrations/0005-webhook-events.ts';
import * as prescriptions from '../../../migrations/0006-prescriptions.ts';
import * as webhookDeliveries from '../../../migrations/0007-webhook-deliveries.ts';
import * as portal from '../../../migrations/0008-portal.ts';
import * as idempotencyKeys from '../../../migrations/0009-idempotency-keys.ts';
import * as credentialRotation from '../../../migrations/0010-credential-rotation.ts';
import * as portalFormIds from '../../../migrations/0011-portal-form-ids.ts';
import * as customDrugCounts from '../../../migrations/0012-custom-drug-counts.ts';
import * as auditTrail from '../../../migrations/0013-audit-trail.ts';
import * as retention from '../../../migrations/0014-retention.ts';
import * as webhookEventTraceContext from '../../../migrations/0015-webhook-event-trace-context.ts';
import * as rtpmChecks from '../../../migrations/0065-rtpm-checks.ts';
import * as sealedContactColumns from '../../../migrations/0070-sealed-contact-columns.ts';
import * as sealedHpii from '../../../migrations/0071-sealed-hpii.ts';
import * as ssoLinkReplays from '../../../migrations/0080-sso-link-replays.ts';
import * as sealedPatientContacts from '../../../migrations/0081-sealed-patient-contacts.ts';
import * as sealedTokenPageKeys from '../../../migrations/0082-sealed-token-page-keys.ts';
import * as unsealedValueIndexes from '../../../migrations/0083-unsealed-value-indexes.ts';
import * as pbsSchedule from '../../../migrations/0016-pbs-schedule.ts';
import * as prescriptionFields from '../../../migrations/0017-prescription-fields.ts';
import * as prescriptionDrafts from '../../../migrations/0018-prescription-drafts.ts';
import * as tokenMessages from '../../../migrations/0019-token-messages.ts';
import * as partnerUserId from '../../../migrations/0020-partner-user-id.ts';
import * as webhookEventCommitXid from '../../../migrations/0021-webhook-event-commit-xid.ts';
import * as organizationPractice from '../../../migrations/0040-organization-practice.ts';
import * as prescriptionLegalIdentity from '../../../migrations/0041-prescription-legal-identity.ts';
import * as paperPrescriptions from '../../../migrations/0042-paper-prescriptions.ts';
import * as pdsSimulator from '../../../migrations/0059-pds-simulator.ts';
import * as pdsSubmissions from '../../../migrations/0060-pds-submissions.ts';
import * as prescriptionDispensing from '../../../migrations/0061-prescription-dispensing.ts';
import * as webhookEventTypes from '../../../migrations/0062-webhook-event-types.ts';
import * as securityAlerts from '../../../migrations/0046-security-alerts.ts';
import * as webhookAttemptGuarded from '../../../migrations/0047-webhook-attempt-guarded.ts';
import * as prescriberMfa from '../../../migrations/0053-prescriber-mfa.ts';
import * as webhookDeliveryEndedBecause from '../../../migrations/0075-webhook-delivery-ended-because.ts';
import * as webhookEndpointChange from '../../../migrations/0076-webhook-endpoint-change.ts';
import * as partnerSelfServiceLimits from '../../../migrations/0077-partner-self-service-limits.ts';

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-foundation': foundation,
  '0002-patients': patients,
  '0003-custom-drugs': customDrugs,
  '0004-users-providers': usersProviders,
  '0005-webhook-events': webhookEvents,
  '0006-prescriptions': prescriptions,
  '0007-webhook-deliveries': webhookDeliveries,
  '0008-portal': portal,
  '0009-idempotency-keys': idempotencyKeys,
  '0010-credential-rotation': credentialRotation,
  '0011-portal-form-ids': portalFormIds,
  '0012-custom-drug-counts': customDrugCounts,
  '0013-audit-trail': auditTrail,
  '0014-retention': retention,
  '0015-webhook-event-trace-context': webhookEventTraceContext,
  '0016-pbs-schedule': pbsSchedule,
  '0017-prescription-fields': prescriptionFields,
  '0018-prescription-drafts': prescriptionDrafts,
  '0019-token-messages': tokenMessages,
  '0020-partner-user-id': partnerUserId,
  '0021-webhook-event-commit-xid': webhookEventCommitXid,
  '0040-organization-practice': organizationPractice,
  '0041-prescription-legal-identity': prescriptionLegalIdentity,
  '0042-paper-prescriptions': paperPrescriptions,
  '0059-pds-simulator': pdsSimulator,
  '0060-pds-submissions': pdsSubmissions,
  '0061-prescription-dispensing': prescriptionDispensing,
  '0062-webhook-event-types': webhookEventTypes,
  '0046-security-alerts': securityAlerts,
  '0047-webhook-attempt-guarded': webhookAttemptGuarded,
  '0053-prescriber-mfa': prescriberMfa,
  '0065-rtpm-checks': rtpmChecks,
  '0070-sealed-contact-columns': sealedContactColumns,
  '0071-sealed-hpii': sealedHpii,
  '0075-webhook-delivery-ended-because': webhookDeliveryEndedBecause,
  '0076-webhook-endpoint-change': webhookEndpointChange,
  '0077-partner-self-service-limits': partnerSelfServiceLimits,
  '0080-sso-link-replays': ssoLinkReplays,
  '0081-sealed-patient-contacts': sealedPatientContacts,
  '0082-sealed-token-page-keys': sealedTokenPageKeys,
  '0083-unsealed-value-indexes': unsealedValueIndexes,
};

export interface MigrationReport {
  applied: string[];
}

export async function migrateToLatest(database: DatabaseHandle, migrations: Readonly<Record<string, Migration>> = MIGRATIONS): Promise<MigrationReport> {
  const db: Kysely<any> = database;
  // On PostgreSQL the bookkeeping tables live in the connection's schema, the only one its
  // introspector reads (postgres-schema-introspector.ts). Numbers are handed out per issue
  // and merged in any order, so a database may have run 0009 before 0008 exists: the missing
  // lower number is applied then, instead of refusing to start.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...migrations }) }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const what = failed ? `migration ${failed} failed` : 'migrations could not start';
    throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
