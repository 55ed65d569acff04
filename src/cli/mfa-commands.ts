// erx org set-mfa | user reset-mfa: prescriber MFA for operators (issue 39). They join the `org`
// and `user` command groups the onboarding commands make.
import { Command } from 'commander';
import { resetUserMfaAsOperator, setOrganizationMfaPolicy } from '../mfa/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

function groupOf(program: Command, name: string): Command {
  const group = program.commands.find((command) => command.name() === name);
  if (!group) throw new Error(`the ${name} command group must be registered before the MFA commands`);
  return group;
}

export function registerMfaCommands(program: Command): void {
  addJsonOption(groupOf(program, 'org').command('set-mfa <organization_id> <policy>'))
    .description('whether the organization requires MFA in the portal: required or optional (without it: required in production, optional in the sandbox)')
    .action(async (organizationId: string, policy: string, options: CommandOptions) => {
      const result = await withFeatures(({ mfa }) => setOrganizationMfaPolicy(mfa, organizationId, policy));
      printResult(options, result, [`organization_id:  ${result.organization_id}`, `mfa:              ${result.mfa}`]);
    });

  addJsonOption(groupOf(program, 'user').command('reset-mfa <organization_id> <user_id>'))
    .description("remove a user's MFA factors and recovery codes (they lost them): their portal sessions end and they enrol again at next sign-in")
    .action(async (organizationId: string, userId: string, options: CommandOptions) => {
      const result = await withFeatures(({ mfa }) => resetUserMfaAsOperator(mfa, organizationId, userId));
      printResult(options, result, [
        `user_id:          ${result.user_id}  (organization ${result.organization_id})`,
        `factors removed:  ${result.factors_removed}`,
        `sessions ended:   ${result.sessions_ended}`,
      ]);
    });
}
