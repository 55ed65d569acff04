// erx sandbox dispense <scid>: a pharmacy dispenses the next supply of a prescription at the
// sandbox PDS (ERX_PDS=simulator), as the test helper's route does for a partner.
import type { Command } from 'commander';
import { dispenseInSandbox } from '../prescriptions/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

/** Adds `dispense` to the `erx sandbox` command group (server-commands.ts makes it, with `seed`). */
export function registerSandboxDispenseCommand(sandbox: Command): void {
  addJsonOption(sandbox.command('dispense <scid>'))
    .description('a pharmacy dispenses the next supply (the original, then each repeat) of the prescription with this SCID at the sandbox PDS')
    .action(async (scid: string, options: CommandOptions) => {
      const result = await withFeatures(({ prescriptions }) => dispenseInSandbox(prescriptions, scid));
      const { supplies_dispensed, repeats_remaining, last_dispensed_at } = result.dispensing;
      printResult(options, result, [`dispensed ${result.scid}: ${supplies_dispensed} supplies so far, ${repeats_remaining} repeats left (last ${last_dispensed_at})`]);
    });
}
