import { describe, expect, it } from 'vitest';
import { ApiError } from '../platform/http/api-error.ts';
import { planTransition, PRESCRIPTION_ACTIONS, PRESCRIPTION_STATUSES, type PrescriptionAction, type PrescriptionStatus } from './prescription-lifecycle.ts';

// Every (action, current status) pair, written out: the allowed ones with what they lead to.
const ALLOWED: Array<[PrescriptionAction, PrescriptionStatus | null, PrescriptionStatus, string]> = [
  ['create', null, 'Active', 'prescription.created'],
  ['cease', 'Active', 'Ceased', 'prescription.ceased'],
  ['cancel', 'Active', 'Cancelled', 'prescription.cancelled'],
  ['reissue', 'Active', 'Active', 'prescription.reissued'],
];

const CURRENT: Array<PrescriptionStatus | null> = [null, ...PRESCRIPTION_STATUSES];
const PAIRS = PRESCRIPTION_ACTIONS.flatMap((action) => CURRENT.map((current) => [action, current] as const));

describe('the prescription lifecycle', () => {
  it('has 4 actions × 6 current states (none, Active, Ceased, Cancelled, Error, Pending) = 24 pairs, 4 of them allowed', () => {
    expect(PAIRS).toHaveLength(24);
    expect(PAIRS.filter(([action, current]) => ALLOWED.some(([a, c]) => a === action && c === current))).toHaveLength(4);
  });

  it.each(ALLOWED)('%s from %s leads to %s with event %s', (action, current, to, event) => {
    expect(planTransition(action, current)).toMatchObject({ to, event });
  });

  const REFUSED = PAIRS.filter(([action, current]) => !ALLOWED.some(([a, c]) => a === action && c === current));

  it.each(REFUSED)('%s from %s is a 409 naming the current status', (action, current) => {
    let thrown: unknown;
    try {
      planTransition(action, current, 'A12425GABC1234002M');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect(error.status).toBe(409);
    expect(error.code).toBe('CONFLICT');
    expect(error.detail).toContain(current === null ? 'does not exist yet' : `Prescription A12425GABC1234002M is ${current}`);
  });
});
