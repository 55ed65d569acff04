// erx partner create | partner set-frame-origins | org create | org enable-partner | user create | user show
import type { Command } from 'commander';
import {
  createOrganization,
  createPartner,
  enablePartnerForOrganization,
  OnboardingError,
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
}
