// erx hi check: one provider lookup for the configured test provider, to see that the HI
// Service answers (vendor test environment, certificate renewal). Exit 0 only when it answered
// the lookup (verified, no match, no status, inactive); 1 when it refused (rejected) or could not
// be reached. Prints the answer and the masked HPI-I, never the provider's demographics.
import type { Command } from 'commander';
import { maskIdentifier } from '../audit/index.ts';
import { loadConfig } from '../config.ts';
import { checkHiConnection, type HiCheckInput, type HiCheckResult } from '../users/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

interface HiCheckOptions extends CommandOptions {
  hpio?: string;
  hpii?: string;
  familyName?: string;
  givenName?: string;
  dateOfBirth?: string;
  sex?: string;
}

function describeAnswer(result: HiCheckResult): string {
  if (result.answer === 'rejected') return `rejected (${result.severity} ${result.code})`;
  if (result.answer === 'unreachable') return `unreachable (${result.reason})`;
  return result.answer;
}

async function checkHi(options: HiCheckOptions): Promise<void> {
  const config = loadConfig();
  const check = config.hiCheck;
  const input: HiCheckInput = {
    hpio: options.hpio ?? check.hpio,
    hpii: options.hpii ?? check.hpii,
    familyName: options.familyName ?? check.familyName,
    givenName: options.givenName ?? check.givenName,
    dateOfBirth: options.dateOfBirth ?? check.dateOfBirth,
    sex: options.sex ?? check.sex,
  };
  const result = await withFeatures((features) => checkHiConnection(features.users, input), { askHiService: true });
  const target = config.hiAdapter === 'soap' ? config.hiSoap.endpoint : 'the sandbox simulator';
  const hpii = input.hpii ? maskIdentifier(input.hpii) : '';
  printResult(options, { adapter: config.hiAdapter, ...(config.hiAdapter === 'soap' ? { endpoint: target } : {}), hpii, hpio: input.hpio, ...result }, [
    `HI Service (${config.hiAdapter}, ${target}): ${describeAnswer(result)} in ${result.durationMs} ms`,
    `  provider lookup for HPI-I ${hpii} on behalf of HPI-O ${input.hpio}`,
  ]);
  if (!result.answered) process.exitCode = 1;
}

export function registerHiCommands(program: Command): void {
  const hi = program.command('hi').description('The HI Service erx asks');
  addJsonOption(
    hi
      .command('check')
      .description('Run one provider lookup for the configured test provider (ERX_HI_CHECK_*) and print what the HI Service answered')
      .option('--hpio <hpio>', 'HPI-O to ask on behalf of (default ERX_HI_CHECK_HPIO)')
      .option('--hpii <hpii>', "test provider's HPI-I (default ERX_HI_CHECK_HPII)")
      .option('--family-name <name>', "test provider's family name (default ERX_HI_CHECK_FAMILY_NAME)")
      .option('--given-name <name>', "test provider's given name (default ERX_HI_CHECK_GIVEN_NAME)")
      .option('--date-of-birth <date>', "test provider's date of birth, YYYY-MM-DD (default ERX_HI_CHECK_DATE_OF_BIRTH)")
      .option('--sex <sex>', "test provider's sex, M, F, N or I (default ERX_HI_CHECK_SEX)"),
  ).action(checkHi);
}
