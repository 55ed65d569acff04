// Every action the audit trail records, as one table: what it is called in the trail and how
// it reads as a FHIR R4 AuditEvent (audit-fhir.ts). A new audited action is one line here.
//
// `type` is the AuditEvent.type: a RESTful interaction on patient data, an HI Service query,
// an authentication event, or an administrative change. `interaction` is the RESTful
// interaction (http://hl7.org/fhir/restful-interaction) where there is one; `code` the
// AuditEvent.action (C create, R read, U update, D delete, E execute).

export type AuditEventType = 'rest' | 'query' | 'authentication' | 'administration';
type ActionCode = 'C' | 'R' | 'U' | 'D' | 'E';

interface ActionDescription {
  type: AuditEventType;
  code: ActionCode;
  interaction?: 'read' | 'search-type' | 'create' | 'update' | 'delete';
  /** What the action is, for `erx audit list` and the export's subtype display. */
  display: string;
}

export const AUDIT_ACTIONS = {
  // The HI Service: one entry per call (each search path tried), with path, outcome and duration.
  'hi.ihi_search': { type: 'query', code: 'E', display: 'IHI search in the HI Service' },
  'hi.provider_verify': { type: 'query', code: 'E', display: 'HPI-I verification in the HI Service' },

  'patient.create': { type: 'rest', code: 'C', interaction: 'create', display: 'patient created' },
  'patient.read': { type: 'rest', code: 'R', interaction: 'read', display: 'patient read' },
  'patient.list': { type: 'rest', code: 'R', interaction: 'search-type', display: 'patients listed' },
  'patient.update': { type: 'rest', code: 'U', interaction: 'update', display: 'patient updated' },
  'patient.delete': { type: 'rest', code: 'D', interaction: 'delete', display: 'patient deleted' },

  'prescription.create': { type: 'rest', code: 'C', interaction: 'create', display: 'prescription created' },
  'prescription.cease': { type: 'rest', code: 'U', interaction: 'update', display: 'prescription ceased' },
  'prescription.cancel': { type: 'rest', code: 'U', interaction: 'update', display: 'prescription cancelled' },
  'prescription.reissue': { type: 'rest', code: 'U', interaction: 'update', display: 'prescription reissued' },
  'prescription.read': { type: 'rest', code: 'R', interaction: 'read', display: 'prescription read' },
  'prescription.list': { type: 'rest', code: 'R', interaction: 'search-type', display: 'prescriptions listed' },
  // The event feed: a partner read its events of an organization (their envelopes name patients and prescriptions).
  'webhook.events_read': { type: 'rest', code: 'R', interaction: 'search-type', display: 'webhook events listed from the event feed' },
  'prescription.token_page': { type: 'rest', code: 'R', interaction: 'read', display: 'prescription token page shown' },
  // A paper prescription's PDF, downloaded from the portal (it shows the patient's identifiers).
  'prescription.print': { type: 'rest', code: 'R', interaction: 'read', display: 'paper prescription printed (PDF)' },
  // The approval queue: a draft prepared for a named prescriber, approved (its prescription.create follows) or declined.
  'prescription.draft_prepare': { type: 'rest', code: 'C', interaction: 'create', display: 'prescription draft prepared for approval' },
  'prescription.draft_approve': { type: 'rest', code: 'U', interaction: 'update', display: 'prescription draft approved' },
  'prescription.draft_decline': { type: 'rest', code: 'U', interaction: 'update', display: 'prescription draft declined' },
  'prescription.draft_read': { type: 'rest', code: 'R', interaction: 'read', display: 'prescription draft read' },
  'prescription.draft_list': { type: 'rest', code: 'R', interaction: 'search-type', display: 'prescription drafts listed' },
  // One entry per attempt to send a token message: the channel and the outcome class, never the phone or address.
  'prescription.token_send': { type: 'rest', code: 'E', display: 'prescription token message sent' },
  // One entry per attempt to submit a prescription to the PDS: accepted (success), refused or past its budget (error), unreachable and retried (error, reason unreachable).
  'prescription.pds_submit': { type: 'rest', code: 'E', display: 'prescription submitted to the PDS' },
  // A Pending prescription written on paper instead: its PDS submission withdrawn, the prescription PAPER for its whole life.
  'prescription.paper_instead': { type: 'rest', code: 'U', interaction: 'update', display: 'prescription written on paper instead (PDS submission withdrawn)' },
  // A dispense the PDS reported (the sandbox's dispense, for now).
  'prescription.dispense': { type: 'rest', code: 'U', interaction: 'update', display: 'prescription dispensed (reported by the PDS)' },

  // Real-time prescription monitoring before a monitored medicine (src/rtpm/): the check (outcome and level, never the
  // notifications' text), the prescriber's acknowledgement of amber or red notifications, and an attestation (ERX_RTPM=none,
  // or a check that was unavailable, with the prescriber's reason kept in rtpm_checks).
  'rtpm.check': { type: 'query', code: 'E', display: 'real-time prescription monitoring checked' },
  'rtpm.acknowledge': { type: 'rest', code: 'U', interaction: 'update', display: 'RTPM notifications opened and acknowledged' },
  'rtpm.attest': { type: 'rest', code: 'C', interaction: 'create', display: 'RTPM check attested by the prescriber' },

  'user.create': { type: 'rest', code: 'C', interaction: 'create', display: 'user created' },
  'user.read': { type: 'rest', code: 'R', interaction: 'read', display: 'user read' },
  'user.update': { type: 'rest', code: 'U', interaction: 'update', display: 'user details updated' },
  'user.roles_change': { type: 'administration', code: 'U', display: "user's roles changed" },
  'user.disable': { type: 'administration', code: 'U', display: 'user disabled' },
  'user.enable': { type: 'administration', code: 'U', display: 'user enabled' },

  'auth.token_issued': { type: 'authentication', code: 'E', display: 'access token issued' },
  'auth.credential_failure': { type: 'authentication', code: 'E', display: 'credentials refused' },
  'auth.sso_minted': { type: 'authentication', code: 'C', display: 'SSO link minted' },
  'auth.sso_spent': { type: 'authentication', code: 'E', display: 'SSO link spent' },
  'auth.portal_sign_in': { type: 'authentication', code: 'E', display: 'portal sign-in' },
  'auth.portal_sign_out': { type: 'authentication', code: 'E', display: 'portal sign-out' },
  // Prescriber MFA (issue 39): no secret, code or key in any entry; detail.reason names the method.
  'mfa.enrol': { type: 'authentication', code: 'C', display: 'MFA factor enrolled' },
  'mfa.verify': { type: 'authentication', code: 'E', display: 'MFA factor presented' },
  'mfa.step_up': { type: 'authentication', code: 'E', display: 'MFA factor presented again for a step-up' },
  'mfa.recovery_used': { type: 'authentication', code: 'E', display: 'MFA recovery code used' },
  'mfa.recovery_codes_issued': { type: 'authentication', code: 'C', display: 'MFA recovery codes issued' },
  'mfa.factor_remove': { type: 'authentication', code: 'D', display: 'MFA factor removed' },
  'mfa.reset': { type: 'administration', code: 'D', display: "user's MFA factors reset" },
  'admin.organization_mfa': { type: 'administration', code: 'U', display: "organization's MFA policy set" },
  'auth.integration_validated': { type: 'authentication', code: 'E', display: 'integration validated' },

  // Operators' `erx` commands that change state.
  'admin.partner_create': { type: 'administration', code: 'C', display: 'partner created' },
  'admin.partner_frame_origins': { type: 'administration', code: 'U', display: "partner's frame origins set" },
  'admin.partner_rotate_secret': { type: 'administration', code: 'U', display: "partner's secret rotated" },
  'admin.organization_create': { type: 'administration', code: 'C', display: 'organization created' },
  'admin.organization_practice': { type: 'administration', code: 'U', display: "organization's practice address and phone set" },
  'admin.organization_rotate_secret': { type: 'administration', code: 'U', display: "organization's secret rotated" },
  'admin.partner_enable': { type: 'administration', code: 'U', display: 'partner enabled for an organization' },
  'admin.partner_disable': { type: 'administration', code: 'U', display: 'partner withdrawn from an organization' },
  'admin.sessions_revoke': { type: 'administration', code: 'D', display: 'portal sessions revoked' },
  'admin.webhook_endpoint_set': { type: 'administration', code: 'U', display: 'webhook endpoint set' },
  'admin.webhook_endpoint_enable': { type: 'administration', code: 'U', display: 'webhook endpoint enabled' },
  'admin.webhook_endpoint_disable': { type: 'administration', code: 'U', display: 'webhook endpoint disabled' },
  'admin.webhook_secret_rotate': { type: 'administration', code: 'U', display: 'webhook secret rotated' },
  'admin.webhook_replay': { type: 'administration', code: 'E', display: 'webhook events replayed' },
  'admin.webhook_ping': { type: 'administration', code: 'E', display: 'webhook endpoint pinged' },
  'admin.webhook_event_types_set': { type: 'administration', code: 'U', display: 'webhook endpoint event types set' },
  'admin.webhook_endpoint_confirm': { type: 'administration', code: 'U', display: "partner's webhook URL change confirmed before its delay" },
  // The same changes made by a partner itself through /v1/partner/ (actor kind partner).
  'partner.webhook_endpoint_set': { type: 'administration', code: 'U', display: 'webhook endpoint set by the partner' },
  'partner.webhook_secret_rotate': { type: 'administration', code: 'U', display: 'webhook secret rotated by the partner' },
  'partner.webhook_replay': { type: 'administration', code: 'E', display: 'webhook events replayed by the partner' },
  'partner.webhook_ping': { type: 'administration', code: 'E', display: 'webhook endpoint pinged by the partner' },
  'partner.webhook_event_types_set': { type: 'administration', code: 'U', display: 'webhook endpoint event types set by the partner' },
  'admin.sandbox_seed': { type: 'administration', code: 'C', display: 'sandbox seeded' },
  'admin.pbs_schedule_import': { type: 'administration', code: 'U', display: 'PBS schedule imported into the medicines catalogue' },
  // `erx backup` and `erx restore`: the restore names the chain head it replaced and the one it put back.
  'admin.database_backup': { type: 'administration', code: 'R', display: 'database backed up' },
  'admin.database_restore': { type: 'administration', code: 'U', display: 'database restored from a backup' },
  // Reads of what others did (issue 38 item 4): the trail itself, webhook history (operator or partner).
  'admin.audit_read': { type: 'rest', code: 'R', interaction: 'search-type', display: 'audit entries listed or exported' },
  // A create retried with its Idempotency-Key and answered with the first response: a read of the resource it made.
  'api.create_replayed': { type: 'rest', code: 'R', interaction: 'read', display: 'a create answered again from its Idempotency-Key' },
  // `erx deliveries list`: which prescriptions' token messages an operator listed (destinations masked).
  'admin.deliveries_read': { type: 'rest', code: 'R', interaction: 'search-type', display: 'token messages listed' },
  'webhook.history_read': { type: 'rest', code: 'R', interaction: 'search-type', display: 'webhook events or attempts read' },
  'admin.audit_pruned': { type: 'administration', code: 'D', display: 'audit entries past retention removed' },
} as const satisfies Readonly<Record<string, ActionDescription>>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export function isAuditAction(value: string): value is AuditAction {
  return Object.hasOwn(AUDIT_ACTIONS, value);
}
