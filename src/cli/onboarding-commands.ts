// erx partner create | partner set-frame-origins | partner rotate-secret | org create | org enable-partner |
// org disable-partner | org rotate-secret | org set-practice | user create | user show | sessions revoke
import { InvalidArgumentError, type Command } from 'commander';
import {
  createOrganization,
  createPartner,
  DEFAULT_OVERLAP_HOURS,
  disablePartnerForOrganization,
  enablePartnerForOrganization,
  OnboardingError,
  revokePortalSessions,
  rotateOrganizationSecret,
  rotatePartnerSecret,
  setOrganizationPractice,
  setPartnerFrameOrigins,
  createUser,
  showUser,
} from '../onboarding/index.ts';
import { addJsonOption, listOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

export function registerOnboardingCommands(program: Command): void {
  const partner = program.command('partner').description('manage partners (clinical software vendors)');
  addJsonOption(partner.command('create <partner_id>'))
    .description('register a partner; prints its secret (and webhook secret) once')
    .option('--name <name>', 'display name')
    .option('--webhook-url <url>', 'endpoint that receives prescription webhooks')
    .action(async (partnerId: string, options: CommandOptions & { name?: string; webhookUrl?: string }) => {
      const result = await withFeatures(({ onboarding }) =>
        createPartner(onboarding, { partnerId, name: options.name, webhookUrl: options.webhookUrl }),
      );
      printResult(options, result, [
        `partner_id:      ${result.partner_id}`,
        `partner_secret:  ${result.partner_secret}   (shown once)`,
        ...(result.webhook_secret ? [`webhook_url:     ${result.webhook_url}`, `webhook_secret:  ${result.webhook_secret}   (shown once)`] : []),
      ]);
    });

  addJsonOption(partner.command('set-frame-origins <partner_id> [origins...]'))
    .description("set the origins allowed to frame the portal (an iframe of /embed/...) for this partner's users; replaces the list")
    .option('--none', 'refuse framing altogether (clears the list)')
    .action(async (partnerId: string, origins: string[], options: CommandOptions & { none?: boolean }) => {
      if (origins.length === 0 && !options.none) throw new OnboardingError('name at least one origin, or --none to refuse framing');
      if (origins.length > 0 && options.none) throw new OnboardingError('--none takes no origins');
      const result = await withFeatures(({ onboarding }) => setPartnerFrameOrigins(onboarding, partnerId, origins));
      printResult(options, result, [
        `partner_id:     ${result.partner_id}`,
        `frame origins:  ${result.frame_origins.length > 0 ? result.frame_origins.join(' ') : "(none: framing refused)"}`,
      ]);
    });

  addOverlapOption(addJsonOption(partner.command('rotate-secret <partner_id>')))
    .description('issue a new partner secret, printed once; the old one keeps working during the overlap')
    .action(async (partnerId: string, options: CommandOptions & { overlapHours: number }) => {
      const result = await withFeatures(({ onboarding }) => rotatePartnerSecret(onboarding, partnerId, options.overlapHours));
      printResult(options, result, [
        `partner_id:      ${result.partner_id}`,
        `partner_secret:  ${result.partner_secret}   (shown once: give it to the partner now)`,
        overlapLine(result.previous_secret_valid_until),
      ]);
    });

  const org = program.command('org').description('manage organizations (clinics)');
  addJsonOption(org.command('create'))
    .description('create an organization; prints its id and secret once')
    .requiredOption('--name <name>', 'organization name')
    .option('--hpio <hpio>', 'HPI-O (16 digits, 800362...)')
    .option('--scopes <list>', 'comma-separated scopes partners may be granted (default: all)', listOption)
    .action(async (options: CommandOptions & { name: string; hpio?: string; scopes?: string[] }) => {
      const result = await withFeatures(({ onboarding }) => createOrganization(onboarding, options));
      printResult(options, result, [
        `organization_id:      ${result.organization_id}`,
        `organization_secret:  ${result.organization_secret}   (shown once)`,
        `hpio:                 ${result.hpio ?? '(none)'}`,
        `allowed scopes:       ${result.allowed_scopes.join(' ')}`,
      ]);
    });

  addJsonOption(org.command('enable-partner <organization_id> <partner_id>'))
    .description('let a partner obtain tokens for an organization')
    .action(async (organizationId: string, partnerId: string, options: CommandOptions) => {
      const result = await withFeatures(({ onboarding }) => enablePartnerForOrganization(onboarding, { organizationId, partnerId }));
      printResult(options, result, [
        `${result.already_enabled ? 'already enabled' : 'enabled'}: partner ${result.partner_id} for organization ${result.organization_id}`,
      ]);
    });

  addJsonOption(org.command('disable-partner <organization_id> <partner_id>'))
    .description("withdraw a partner's access: its tokens, unspent SSO links and portal sessions for the organization stop at once")
    .action(async (organizationId: string, partnerId: string, options: CommandOptions) => {
      const result = await withFeatures(({ onboarding }) => disablePartnerForOrganization(onboarding, { organizationId, partnerId }));
      printResult(options, result, [
        `${result.already_disabled ? 'already disabled' : 'disabled'}: partner ${result.partner_id} for organization ${result.organization_id}`,
        `portal sessions ended: ${result.sessions_ended}; unspent SSO links revoked: ${result.sso_links_revoked}`,
      ]);
    });

  addJsonOption(org.command('set-practice <organization_id>'))
    .description("record the practice address and phone the organization's prescriptions state (required before its prescribers can prescribe); replaces any recorded")
    .requiredOption('--street <text>', 'street address, e.g. "12 Smith St" (up to 100 characters)')
    .requiredOption('--suburb <text>', 'suburb or town (up to 50 characters)')
    .requiredOption('--state <state>', 'NSW, VIC, QLD, WA, SA, TAS, ACT or NT')
    .requiredOption('--postcode <digits>', '4 digits')
    .requiredOption('--phone <number>', 'an Australian phone number, e.g. "03 9123 4567"')
    .action(async (organizationId: string, options: CommandOptions & { street: string; suburb: string; state: string; postcode: string; phone: string }) => {
      const set = await withFeatures(({ onboarding }) => setOrganizationPractice(onboarding, organizationId, options));
      const { street, suburb, state, postcode, phone } = set;
      const result = { organization_id: set.organizationId, name: set.name, practice: { street, suburb, state, postcode, phone } };
      printResult(options, result, [
        `organization_id:  ${result.organization_id}  (${result.name})`,
        `practice:         ${street}, ${suburb} ${state} ${postcode}`,
        `phone:            ${phone}`,
      ]);
    });

  addOverlapOption(addJsonOption(org.command('rotate-secret <organization_id>')))
    .description('issue a new organization secret, printed once; the old one keeps working during the overlap')
    .action(async (organizationId: string, options: CommandOptions & { overlapHours: number }) => {
      const result = await withFeatures(({ onboarding }) => rotateOrganizationSecret(onboarding, organizationId, options.overlapHours));
      printResult(options, result, [
        `organization_id:      ${result.organization_id}`,
        `organization_secret:  ${result.organization_secret}   (shown once: give it to the clinic's partners now)`,
        overlapLine(result.previous_secret_valid_until),
      ]);
    });

  const user = program.command('user').description('manage users');
  addJsonOption(user.command('create'))
    .description('create a user in an organization; prints its user_id')
    .requiredOption('--org <organization_id>', 'organization the user belongs to')
    .requiredOption('--email <email>', 'e-mail (unique across the platform)')
    .requiredOption('--given-name <name>', 'given name')
    .requiredOption('--family-name <name>', 'family name')
    .requiredOption('--roles <list>', 'comma-separated: owner,admin,provider,receptionist,rx_reader,rx_queue_manager', listOption)
    .action(async (options: CommandOptions & { org: string; email: string; givenName: string; familyName: string; roles: string[] }) => {
      const result = await withFeatures(({ onboarding }) =>
        createUser(onboarding, {
          organizationId: options.org,
          email: options.email,
          givenName: options.givenName,
          familyName: options.familyName,
          roles: options.roles,
        }),
      );
      printResult(options, result, [`user_id: ${result.user_id}`, `email:   ${result.email}`, `roles:   ${result.roles.join(',')}`]);
    });

  addJsonOption(user.command('show <user_id>'))
    .description('show a user of any organization as stored, with its provider record')
    .action(async (userId: string, options: CommandOptions) => {
      const result = await withFeatures(({ onboarding }) => showUser(onboarding, userId));
      const record = result.provider_record;
      printResult(options, result, [
        `user_id:          ${result.user_id}`,
        `organization_id:  ${result.organization_id}`,
        `email:            ${result.email}`,
        `roles:            ${result.roles.join(',')}${result.enabled ? '' : '   (disabled)'}`,
        record
          ? `provider record:  ${record.status}, HPI-I ${record.hpii_number}, verified ${record.verified_at}, updated ${record.updated_at}`
          : 'provider record:  (none)',
      ]);
    });

  const sessions = program.command('sessions').description('portal sessions');
  addJsonOption(sessions.command('revoke'))
    .description("end an organization's portal sessions (or one user's); their cookies open nothing any more")
    .requiredOption('--organization <organization_id>', 'organization whose sessions end')
    .option('--user <user_id>', "only this user's sessions")
    .action(async (options: CommandOptions & { organization: string; user?: string }) => {
      const result = await withFeatures(({ onboarding }) => revokePortalSessions(onboarding, { organizationId: options.organization, userId: options.user }));
      const whose = result.user_id ? `user ${result.user_id} of organization ${result.organization_id}` : `organization ${result.organization_id}`;
      printResult(options, result, [`ended ${result.sessions_ended} portal session(s) of ${whose}`]);
    });
}

function addOverlapOption(command: Command): Command {
  return command.option('--overlap-hours <hours>', 'how long the old secret keeps working (0: it stops at once)', wholeHours, DEFAULT_OVERLAP_HOURS);
}

function wholeHours(value: string): number {
  if (!/^\d{1,6}$/.test(value)) throw new InvalidArgumentError('expected a whole number of hours (0 for none).');
  return Number(value);
}

function overlapLine(validUntil: string | null): string {
  return validUntil ? `the old secret keeps working until ${validUntil}, then stops` : 'the old secret no longer works';
}
