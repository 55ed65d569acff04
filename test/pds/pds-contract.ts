// The contract every PDS must keep, as erx relies on it: run unchanged against the sandbox
// simulator and against the recording double (and, once its interface is in hand, against an
// adapter for the national PDS in its test environment). What only the real service can prove
// (its codes' meanings, its SCIDs' own check, its timing) is listed in docs/operators/pds.md.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isScidFormat, type PdsPort, type PdsResult, type PdsSandbox, type PdsSubmission } from '../../src/pds/index.ts';

export type ArrangedFailure = 'refused' | 'unreachable' | 'timeout';

export interface PdsUnderTest {
  port: PdsPort;
  sandbox: PdsSandbox;
  /** A submission the PDS will answer with `failure` (a fixture patient's, or an injected failure); the refusal's code and message. */
  failingSubmission(failure: ArrangedFailure): { submission: PdsSubmission; refusal?: { code: string; message: string } };
  /** Makes the next call of `method` fail so; undefined when this PDS cannot be made to (the simulator's faults are per patient). */
  failNextChange?: (method: 'cancel' | 'cease' | 'resendToken' | 'readDispensing', failure: ArrangedFailure) => { code: string; message: string } | undefined;
}

export function submissionFor(patient: Partial<PdsSubmission['patient']> = {}, repeats = 2): PdsSubmission {
  const uniqueId = randomUUID();
  return {
    uniqueId,
    patient: { ihi: null, name: 'Ms Ada Contract', dateOfBirth: '1990-01-01', ...patient },
    repeats,
    paperScript: false,
    content: { uniqueId, medicine: { name: 'Amoxicillin', quantity: '20', repeats: String(repeats) } },
  };
}

function accepted<Value>(result: PdsResult<Value>): Value {
  if (!result.ok) throw new Error(`expected the PDS to accept, got ${JSON.stringify(result)}`);
  return result;
}

export function describePdsContract(name: string, setUp: () => Promise<PdsUnderTest>): void {
  describe(`PDS contract: ${name}`, () => {
    it('assigns a SCID in the eRx format and one token per item to a submission', async () => {
      const { port } = await setUp();
      const answer = accepted(await port.submit(submissionFor()));
      expect(isScidFormat(answer.scid)).toBe(true);
      expect(answer.tokens).toHaveLength(1);
    });

    it('assigns a SCID in the eRx format to a paper script (an ETP paper script: its SCID is printed as a barcode)', async () => {
      const { port, sandbox } = await setUp();
      const answer = accepted(await port.submit({ ...submissionFor({}, 0), paperScript: true }));
      expect(isScidFormat(answer.scid)).toBe(true);
      expect(accepted(await sandbox.dispense(answer.scid, '2026-11-28T01:00:00.000Z'))).toMatchObject({ suppliesDispensed: 1, repeatsRemaining: 0 });
    });

    it('takes each unique id once: submitted again, it answers with the same SCID; another id gets another SCID', async () => {
      const { port } = await setUp();
      const submission = submissionFor();
      const first = accepted(await port.submit(submission));
      const again = accepted(await port.submit(submission));
      const other = accepted(await port.submit(submissionFor()));
      expect(again.scid).toBe(first.scid);
      expect(other.scid).not.toBe(first.scid);
    });

    it('counts dispensed supplies and repeats, and refuses a dispense past the last supply', async () => {
      const { port, sandbox } = await setUp();
      const { scid } = accepted(await port.submit(submissionFor({}, 1)));
      expect(accepted(await port.readDispensing(scid))).toMatchObject({ suppliesDispensed: 0, repeatsRemaining: 1, lastDispensedAt: null });
      expect(accepted(await sandbox.dispense(scid, '2026-11-28T01:00:00.000Z'))).toMatchObject({ suppliesDispensed: 1, repeatsRemaining: 1 });
      expect(accepted(await sandbox.dispense(scid, '2026-11-28T02:00:00.000Z'))).toMatchObject({ suppliesDispensed: 2, repeatsRemaining: 0 });
      expect(accepted(await port.readDispensing(scid))).toEqual({ ok: true, suppliesDispensed: 2, repeatsRemaining: 0, lastDispensedAt: '2026-11-28T02:00:00.000Z' });
      expect(await sandbox.dispense(scid, '2026-11-28T03:00:00.000Z')).toMatchObject({ ok: false, outcome: 'refused' });
    });

    it('refuses to cancel a dispensed script, with its reason, and ceases it', async () => {
      const { port, sandbox } = await setUp();
      const { scid } = accepted(await port.submit(submissionFor()));
      accepted(await sandbox.dispense(scid, '2026-11-28T01:00:00.000Z'));
      const cancel = await port.cancel(scid);
      expect(cancel).toMatchObject({ ok: false, outcome: 'refused' });
      expect(!cancel.ok && cancel.outcome === 'refused' && cancel.message).toMatch(/dispensed/);
      expect(await port.cease(scid)).toEqual({ ok: true });
      expect(await sandbox.dispense(scid, '2026-11-28T02:00:00.000Z')).toMatchObject({ ok: false, outcome: 'refused' });
    });

    it('cancels a script not dispensed; its token then cannot be sent again, nor can it be dispensed', async () => {
      const { port, sandbox } = await setUp();
      const { scid, tokens } = accepted(await port.submit(submissionFor()));
      expect(accepted(await port.resendToken(scid)).tokens).toEqual(tokens);
      expect(await port.cancel(scid)).toEqual({ ok: true });
      expect(await port.cancel(scid)).toEqual({ ok: true });
      expect(await port.resendToken(scid)).toMatchObject({ ok: false, outcome: 'refused' });
      expect(await sandbox.dispense(scid, '2026-11-28T01:00:00.000Z')).toMatchObject({ ok: false, outcome: 'refused' });
      expect(await port.cease(scid)).toMatchObject({ ok: false, outcome: 'refused' });
    });

    it('refuses every call on a SCID it does not hold', async () => {
      const { port } = await setUp();
      const unknown = 'ZZZZZZZZZZZZZZZZZ0';
      for (const call of [port.cancel, port.cease, port.resendToken, port.readDispensing]) {
        expect(await call.call(port, unknown)).toMatchObject({ ok: false, outcome: 'refused', code: expect.any(String), message: expect.stringContaining(unknown) });
      }
    });

    it('answers a refused submission with the PDS code and message', async () => {
      const under = await setUp();
      const { submission, refusal } = under.failingSubmission('refused');
      expect(await under.port.submit(submission)).toEqual({ ok: false, outcome: 'refused', ...refusal });
    });

    it('answers an outage as unreachable, and a submission never answered as a timeout (unreachable)', async () => {
      const under = await setUp();
      expect(await under.port.submit(under.failingSubmission('unreachable').submission)).toMatchObject({ ok: false, outcome: 'unreachable', reason: 'connection' });
      expect(await under.port.submit(under.failingSubmission('timeout').submission)).toMatchObject({ ok: false, outcome: 'unreachable', reason: 'timeout' });
    });

    it('answers a failing cancel, cease, token re-send or dispensing read with its failure, typed', async (context) => {
      const under = await setUp();
      if (!under.failNextChange) return context.skip();
      for (const method of ['cancel', 'cease', 'resendToken', 'readDispensing'] as const) {
        const { scid } = accepted(await under.port.submit(submissionFor()));
        const refusal = under.failNextChange(method, 'refused');
        expect(await under.port[method](scid)).toEqual({ ok: false, outcome: 'refused', ...refusal });
        under.failNextChange(method, 'unreachable');
        expect(await under.port[method](scid)).toMatchObject({ ok: false, outcome: 'unreachable', reason: 'connection' });
        under.failNextChange(method, 'timeout');
        expect(await under.port[method](scid)).toMatchObject({ ok: false, outcome: 'unreachable', reason: 'timeout' });
      }
    });
  });
}
