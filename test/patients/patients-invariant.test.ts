// The promise of the precheck, checked over a few hundred generated bodies against one HI
// fixture file written here: for every body, data.create_would_succeed equals whether create
// patient, called right after with the same body, succeeds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HiPatientFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { freshPartnerPatientId } from './patients-given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { type TestClient, givenClient } from '../given.ts';

const SEED = 20261122;
const BODIES = 300;

/** mulberry32: a small seeded generator, so a failure replays exactly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function luhnCompleted(body: string): string {
  for (let check = 0; check <= 9; check++) {
    const digits = `${body}${check}`;
    const sum = [...digits].reverse().reduce((total, char, index) => {
      const doubled = index % 2 === 1 ? Number(char) * 2 : Number(char);
      return total + (doubled > 9 ? doubled - 9 : doubled);
    }, 0);
    if (sum % 10 === 0) return digits;
  }
  throw new Error('unreachable');
}

function medicareNumber(serial: number): string {
  const first8 = `3${String(serial).padStart(7, '0')}`;
  const check = [1, 3, 7, 9, 1, 3, 7, 9].reduce((sum, weight, i) => sum + weight * Number(first8[i]), 0) % 10;
  return `${first8}${check}1`;
}

const STATUS_PAIRS: Array<Pick<HiPatientFixture, 'ihi_status' | 'ihi_record_status'> & { fault?: 'unreachable' }> = [
  { ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED' },
  { ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED' },
  { ihi_status: 'DECEASED', ihi_record_status: 'VERIFIED' },
  { ihi_status: 'RESOLVED', ihi_record_status: 'VERIFIED' },
  { ihi_status: 'ACTIVE', ihi_record_status: 'PROVISIONAL' },
  { ihi_status: 'ACTIVE', ihi_record_status: 'UNVERIFIED' },
  { ihi_status: 'EXPIRED', ihi_record_status: 'PROVISIONAL' },
  { ihi_status: 'UNKNOWN', ihi_record_status: 'UNKNOWN' },
  {},
  { ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED', fault: 'unreachable' },
];

/** One identity per status pair, each reachable on all seven paths. */
const IDENTITIES: HiPatientFixture[] = STATUS_PAIRS.map((statuses, i) => ({
  ...statuses,
  ihi_number: luhnCompleted(`80036077${String(i).padStart(7, '0')}`),
  family_name: `Fixture${String.fromCharCode(65 + i)}`,
  given_name: ['Ava', 'Ben', 'Cleo', 'Dan', 'Eve', 'Finn', 'Gia', 'Hugo', 'Ivy', 'Jack'][i]!,
  date_of_birth: `19${60 + i}-0${1 + (i % 9)}-1${i}`,
  sex: (['F', 'M', 'N', 'I'] as const)[i % 4]!,
  medicare_card_number: medicareNumber(7700 + i),
  medicare_irn: String(1 + (i % 9)),
  dva_file_number: `NX${String(770000 + i)}`,
  phone: `04917700${String(i).padStart(2, '0')}`,
  email: `fixture.${i}@invariant.example`,
  australian_street_address: { street_number: String(10 + i), street_name: 'Invariant Rd', suburb: 'Testville', state: 'NSW', postcode: '2000' },
  international_address: { address_line: `${i} Harbour Quay`, postcode: '6011', state_province: 'Wellington', country: 'NZ' },
}));

let t: TestApp;
let ready: TestClient;
let notReady: TestClient;
let fixtureDir: string;

beforeAll(async () => {
  fixtureDir = mkdtempSync(path.join(tmpdir(), 'erx-invariant-'));
  const fixtureFile = path.join(fixtureDir, 'hi-fixtures.json');
  writeFileSync(fixtureFile, JSON.stringify({ patients: IDENTITIES }, null, 2));
  t = await createTestApp({ env: { ERX_HI_FIXTURES: fixtureFile } });
  ready = await givenClient(t);
  notReady = await givenClient(t, { hpio: null });
});
afterAll(async () => {
  await t.close();
  rmSync(fixtureDir, { recursive: true, force: true });
});

type Body = Record<string, unknown>;

const IDENTIFIER_GROUPS: Array<(p: HiPatientFixture) => Body> = [
  (p) => ({ ihi_number: p.ihi_number }),
  (p) => ({ medicare_card_number: p.medicare_card_number, medicare_irn: p.medicare_irn }),
  (p) => ({ dva_file_number: p.dva_file_number }),
  (p) => ({ phone: p.phone }),
  (p) => ({ email: p.email }),
  (p) => ({ australian_street_address: p.australian_street_address }),
  (p) => ({ international_address: p.international_address }),
];

function generateBody(random: () => number, partnerId: string): Body {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const person = pick(IDENTITIES);
  const body: Body = {
    partner_patient_id: freshPartnerPatientId(),
    partner_id: partnerId,
    family_name: person.family_name,
    given_name: random() < 0.2 ? `${person.given_name}x` : person.given_name,
    date_of_birth: random() < 0.1 ? '1999-12-31' : person.date_of_birth,
    sex: person.sex,
  };
  for (const group of IDENTIFIER_GROUPS) {
    if (random() < 0.3) Object.assign(body, group(random() < 0.8 ? person : pick(IDENTITIES)));
  }
  if (random() < 0.12) {
    delete body.medicare_irn;
    body.medicare_card_number = person.medicare_card_number;
  }
  if (random() < 0.04) body.medicare_card_number = '2950141871';
  return body;
}

describe('precheck create_would_succeed', () => {
  it(`equals whether create succeeds, for ${BODIES} generated bodies (seed ${SEED})`, async () => {
    const random = seededRandom(SEED);
    const outcomes = new Map<string, number>();
    const createStatuses = new Set<number>();
    const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);

    for (let n = 0; n < BODIES; n++) {
      const client = random() < 0.08 ? notReady : ready;
      const body = generateBody(random, client.g.partnerId);
      const label = `body #${n}: ${JSON.stringify(body)}`;
      const precheck = await client.precheck(body);
      const create = await client.create(body);
      createStatuses.add(create.statusCode);
      if (precheck.statusCode === 422) {
        expect(create.statusCode, label).toBe(422);
        expect(create.json().error.validation, label).toEqual(precheck.json().error.validation);
        count('validation failed');
        continue;
      }
      expect(precheck.statusCode, label).toBe(200);
      const { outcome, create_would_succeed: wouldSucceed } = precheck.json().data;
      count(`${outcome}:${wouldSucceed}`);
      expect(create.statusCode === 201 || create.statusCode === 200, `${label} → ${outcome}, create ${create.body}`).toBe(wouldSucceed);
      expect(create.statusCode, label).not.toBe(500);
      if (create.statusCode === 201 && random() < 0.3) {
        const again = await client.precheck(body);
        expect(again.json().data, label).toMatchObject({ outcome: 'already_exists', create_would_succeed: true, platform_patient_id: create.json().data.platform_patient_id });
        count('already_exists:true');
        const repeated = await client.create(body);
        createStatuses.add(repeated.statusCode);
        expect(repeated.statusCode, label).toBe(200);
      }
    }

    // The generated set must reach every outcome and every answer of create, or it proves little.
    const expected = [
      'ihi_found:true',
      'ihi_found:false',
      'no_match:true',
      'insufficient_data:true',
      'insufficient_data:false',
      'already_exists:true',
      'organization_not_ready:false',
      'hi_service_error:false',
      'validation failed',
    ];
    for (const outcome of expected) {
      expect(outcomes.get(outcome) ?? 0, `${outcome} in ${JSON.stringify([...outcomes])}`).toBeGreaterThan(0);
    }
    expect([...createStatuses].sort()).toEqual([200, 201, 400, 422, 503]);
  }, 180_000);
});
