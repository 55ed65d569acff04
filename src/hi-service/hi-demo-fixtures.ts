// The sandbox's built-in test identities: one patient per outcome, status pair and search
// path, and one provider per verification result. All are fictional except Jessica Wood and
// Anna Smith's HPI-I, which reuse ADHA's published test numbers. Every IHI and HPI-I passes
// the Luhn check with its prefix and every Medicare number its check digit (see the test).
// The fault records fail every call that reaches them: `unreachable` as a transport failure,
// `rejected` as an Error answer of the service.
// The simulator's fixtures are this set behind a fixture file's records (loadHiSandboxFixtures).

import { loadHiFixtureFile, mergeHiFixtures, type HiFixtures, type HiPatientFixture, type HiProviderFixture } from './hi-fixture-file.ts';

export const HI_DEMO_PATIENTS = {
  /** ACTIVE + VERIFIED, reachable on every one of the seven paths. */
  activeVerified: {
    ihi_number: '8003601240022579',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Wood',
    given_name: 'Jessica',
    date_of_birth: '1985-02-14',
    sex: 'F',
    medicare_card_number: '2950141861',
    medicare_irn: '1',
    dva_file_number: 'NX123456',
    phone: '0412345678',
    email: 'j.wood@example.com',
    australian_street_address: {
      street_number: '12',
      street_name: 'Smith St',
      suburb: 'Fitzroy',
      state: 'VIC',
      postcode: '3065',
    },
    international_address: { address_line: '1 Queen St', postcode: '1010', state_province: 'Auckland', country: 'NZ' },
  },
  deceasedVerified: {
    ihi_number: '8003609900000017',
    ihi_status: 'DECEASED',
    ihi_record_status: 'VERIFIED',
    family_name: 'Departed',
    given_name: 'Dorian',
    date_of_birth: '1931-03-03',
    sex: 'M',
    medicare_card_number: '2999000121',
    medicare_irn: '1',
  },
  retiredVerified: {
    ihi_number: '8003609900000025',
    ihi_status: 'RETIRED',
    ihi_record_status: 'VERIFIED',
    family_name: 'Retiree',
    given_name: 'Rhett',
    date_of_birth: '1928-06-21',
    sex: 'M',
    medicare_card_number: '2999000211',
    medicare_irn: '2',
  },
  expiredVerified: {
    ihi_number: '8003609900000033',
    ihi_status: 'EXPIRED',
    ihi_record_status: 'VERIFIED',
    family_name: 'Expiry',
    given_name: 'Ezra',
    date_of_birth: '1990-09-09',
    sex: 'N',
    medicare_card_number: '2999000301',
    medicare_irn: '1',
  },
  resolvedVerified: {
    ihi_number: '8003609900000041',
    ihi_status: 'RESOLVED',
    ihi_record_status: 'VERIFIED',
    family_name: 'Resolver',
    given_name: 'Rosa',
    date_of_birth: '1977-11-30',
    sex: 'F',
    medicare_card_number: '2999000491',
    medicare_irn: '3',
  },
  activeUnverified: {
    ihi_number: '8003609900000058',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'UNVERIFIED',
    family_name: 'Unconfirmed',
    given_name: 'Ursula',
    date_of_birth: '2001-04-17',
    sex: 'F',
    medicare_card_number: '2999000581',
    medicare_irn: '1',
  },
  activeProvisional: {
    ihi_number: '8003609900000066',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'PROVISIONAL',
    family_name: 'Pending',
    given_name: 'Percy',
    date_of_birth: '1966-07-01',
    sex: 'I',
    medicare_card_number: '2999000671',
    medicare_irn: '1',
  },
  /** The HI Service answered with an IHI but no status fields at all. */
  withoutStatus: {
    ihi_number: '8003609900000074',
    family_name: 'Statusless',
    given_name: 'Stella',
    date_of_birth: '1995-12-25',
    sex: 'F',
    medicare_card_number: '2999000761',
    medicare_irn: '1',
  },
  dvaOnly: {
    ihi_number: '8003609900000082',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Veteran',
    given_name: 'Victor',
    date_of_birth: '1948-04-25',
    sex: 'M',
    dva_file_number: 'V 246810',
  },
  mobileOnly: {
    ihi_number: '8003609900000090',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Mobile',
    given_name: 'Mona',
    date_of_birth: '1999-05-05',
    sex: 'F',
    phone: '0491570156',
  },
  emailOnly: {
    ihi_number: '8003609900000108',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Inbox',
    given_name: 'Emil',
    date_of_birth: '1988-08-08',
    sex: 'M',
    email: 'emil.inbox@example.org',
  },
  streetAddressOnly: {
    ihi_number: '8003609900000116',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Streeter',
    given_name: 'Stuart',
    date_of_birth: '1972-02-29',
    sex: 'M',
    australian_street_address: {
      street_number: '7',
      street_name: 'Wattle Grove',
      suburb: 'Katoomba',
      state: 'NSW',
      postcode: '2780',
    },
  },
  internationalAddressOnly: {
    ihi_number: '8003609900000124',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Overseas',
    given_name: 'Ingrid',
    date_of_birth: '1983-10-10',
    sex: 'F',
    international_address: {
      address_line: '221B Baker Street',
      postcode: 'NW1 6XE',
      state_province: 'London',
      country: 'GB-ENG',
    },
  },
  /** Any search that reaches this record fails as "HI Service unreachable". */
  unreachable: {
    ihi_number: '8003609900000132',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Offline',
    given_name: 'Otto',
    date_of_birth: '1980-01-01',
    sex: 'M',
    medicare_card_number: '2999000851',
    medicare_irn: '1',
    fault: 'unreachable',
  },
  /**
   * A family name of exactly 40 characters, the most the HI Service takes: a longer name whose
   * first 40 characters are these (Wolfeschlegelsteinhausenbergerdorffvoralternwarenge...) finds it.
   */
  longName: {
    ihi_number: '8003609900000157',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Wolfeschlegelsteinhausenbergerdorffvoral',
    given_name: 'Hubert',
    date_of_birth: '1964-04-04',
    sex: 'M',
    medicare_card_number: '2999001001',
    medicare_irn: '1',
  },
  /** Any search that reaches this record is refused by the service (an Error answer). */
  rejected: {
    ihi_number: '8003609900000140',
    ihi_status: 'ACTIVE',
    ihi_record_status: 'VERIFIED',
    family_name: 'Refused',
    given_name: 'Rex',
    date_of_birth: '1979-07-07',
    sex: 'M',
    medicare_card_number: '2999000941',
    medicare_irn: '1',
    fault: 'rejected',
    fault_code: 'HI_FIXTURE_REJECTED',
  },
} satisfies Record<string, HiPatientFixture>;

export const HI_DEMO_PROVIDERS = {
  verified: {
    hpii_number: '8003619166667284',
    family_name: 'Smith',
    given_name: 'Anna',
    date_of_birth: '1970-01-01',
    sex: 'F',
  },
  /**
   * The provider the vendor's Postman collection names in its Update User request, held so the
   * collection runs against the sandbox as it is (his HPI-I passes the Luhn check).
   */
  vendorCollection: {
    hpii_number: '8003616566696624',
    family_name: 'Reynolds',
    given_name: 'Frank',
    date_of_birth: '1967-06-25',
    sex: 'M',
  },
  /** The HI Service found the HPI-I but returned no status. */
  withoutStatus: {
    hpii_number: '8003619900000016',
    family_name: 'Nostatus',
    given_name: 'Nigel',
    date_of_birth: '1975-05-15',
    sex: 'M',
    fault: 'no_status',
  },
  unreachable: {
    hpii_number: '8003619900000024',
    family_name: 'Disconnected',
    given_name: 'Dewey',
    date_of_birth: '1965-03-12',
    sex: 'M',
    fault: 'unreachable',
  },
  /** The HPI-I exists but is deactivated: the answer is `inactive`. */
  deactivated: {
    hpii_number: '8003619900000032',
    family_name: 'Lapsed',
    given_name: 'Dana',
    date_of_birth: '1968-08-18',
    sex: 'F',
    hpii_status: 'deactivated',
  },
  /** The HPI-I exists but is retired: the answer is `inactive`. */
  retired: {
    hpii_number: '8003619900000040',
    family_name: 'Pensioner',
    given_name: 'Rupert',
    date_of_birth: '1950-02-02',
    sex: 'M',
    hpii_status: 'retired',
  },
  /** The service refuses the lookup (an Error answer). */
  rejected: {
    hpii_number: '8003619900000057',
    family_name: 'Refuser',
    given_name: 'Rachel',
    date_of_birth: '1972-12-12',
    sex: 'F',
    fault: 'rejected',
    fault_code: 'HI_FIXTURE_REJECTED',
  },
} satisfies Record<string, HiProviderFixture>;

export const HI_DEMO_FIXTURES: HiFixtures = {
  patients: Object.values(HI_DEMO_PATIENTS),
  providers: Object.values(HI_DEMO_PROVIDERS),
};

/** The simulator's fixtures: the file's records (when a path is given) ahead of the demo set. */
export function loadHiSandboxFixtures(path?: string): HiFixtures {
  if (path === undefined || path === '') return HI_DEMO_FIXTURES;
  return mergeHiFixtures(loadHiFixtureFile(path), HI_DEMO_FIXTURES);
}
