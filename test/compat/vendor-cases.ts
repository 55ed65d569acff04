// The requests the vendor-schema test sends: for every operation the vendor's OpenAPI document
// and erx share, its successes and the error statuses the document declares for it (a 401 for
// a forged token, the 4xx each operation names), plus a token that lacks the operation's scope.
import type { LightMyRequestResponse } from 'fastify';
import { bearer, call, requestToken, tokenHeaders } from '../given.ts';
import type { TestApp } from '../test-app.ts';
import { newScid } from '../../src/pds/pds-scid.ts';
import { SANDBOX_PHARMACIES } from '../../src/prescriptions/index.ts';
import { givenCatalogDrugs, givenUserDrug, validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { givenImportedPatient, patientBody, DEMO } from '../patients/patients-given.ts';
import { givenClinic, givenPrescription, prescriptionsClient, prescriptionsPath, type Clinic } from '../prescriptions/prescriptions-given.ts';
import { ANNA, givenMember, providerDetails } from '../users/users-given.ts';

const ORG = '/v1/organizations/{organization_id}';
const USER = `${ORG}/users/{user_id}`;
const PATIENT = `${USER}/patients/{patient_id}`;

/** The vendor's operations, named as its document writes them. */
export const OP = {
  token: 'POST /v1/token',
  validate: `GET ${ORG}/validate`,
  createPatient: `POST ${USER}/patients`,
  updatePatient: `PUT ${PATIENT}`,
  listPrescriptions: `GET ${PATIENT}/prescriptions`,
  readPrescription: `GET ${PATIENT}/prescriptions/{scid}`,
  createUser: `POST ${ORG}/users`,
  listUsers: `GET ${ORG}/users`,
  readUser: `GET ${USER}`,
  updateUser: `PUT ${USER}`,
  replaceRoles: `PUT ${USER}/roles`,
  listUserDrugs: `GET ${USER}/custom-drugs`,
  createUserDrug: `POST ${USER}/custom-drugs`,
  updateUserDrug: `PUT ${USER}/custom-drugs/{drug_id}`,
  deleteUserDrug: `DELETE ${USER}/custom-drugs/{drug_id}`,
  listCatalog: `GET ${ORG}/custom-drugs`,
  createCatalogDrugs: `POST ${ORG}/custom-drugs`,
  deleteCatalog: `DELETE ${ORG}/custom-drugs`,
} as const;

export interface VendorCase {
  operation: string;
  /** The status erx must answer (a different one fails the test: the case would not test what it says). */
  status: number;
  /** Sent with a token that lacks the operation's scope (the vendor's document may give that another status). */
  missingScope?: boolean;
  send(): Promise<LightMyRequestResponse>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const UNKNOWN_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c';
/** Anna's HPI-I with a wrong check digit: refused (400) before the HI Service is asked. */
const INVALID_HPII = '8003619166667285';
let counter = 0;
const newEmail = () => `vendor.case.${process.pid}.${++counter}@clinic.example`;

/** Everything the cases act on, made through the API: a clinic, a prescription, drugs, a second provider. */
export async function givenVendorCases(t: TestApp): Promise<VendorCase[]> {
  const c: Clinic = await givenClinic(t);
  const scid = (await givenPrescription(t, c)).scid;
  const userDrugId = await givenUserDrug(t, c, validDrug({ custom_product_id: 'VENDOR-1' }));
  // A second prescription shows the optional parts of one: a custom drug, a pharmacy, status Ceased.
  const fromDrug = { custom_drug_id: userDrugId, item_name: undefined, item_strength: undefined, item_form: undefined, route_administration: undefined, schedule_number: undefined };
  const toPharmacy = { delivery: { method: 'EMAIL', recipient_type: 'PHARMACY', pharmacy_id: SANDBOX_PHARMACIES[0]!.pharmacy_id } };
  const ceased = await prescriptionsClient(t, c).change('cease', (await givenPrescription(t, c, { ...fromDrug, ...toPharmacy })).scid);
  if (ceased.statusCode !== 200) throw new Error(`cease failed: ${ceased.statusCode} ${ceased.body}`);
  await givenCatalogDrugs(t, c, [validDrug()]);
  const memberId = await givenMember(t, c);
  const forged = bearer('not-a-token', c.g);
  // read:patient alone: a scope none of these operations accepts.
  const unscoped = bearer(await requestToken(t, c.g, ['read:patient']), c.g);
  const duplicated = 'VENDOR-DUPLICATED';
  await givenImportedPatient(t, c.g, duplicated);
  await givenImportedPatient(t, c.g, duplicated);

  const request = (operation: string, status: number, method: Method, url: string, headers: Record<string, string>, body?: unknown): VendorCase => ({
    operation,
    status,
    send: () => call(t, method, url, headers, body),
  });
  /** The 401 of a forged token and the answer to a token without the scope, for an operation taking `body`. */
  const refusals = (operation: string, method: Method, url: string, body?: unknown): VendorCase[] => [
    request(operation, 401, method, url, forged, body),
    { ...request(operation, 401, method, url, unscoped, body), missingScope: true },
  ];

  const wood = DEMO.activeVerified;
  const patient = (extra: Record<string, unknown> = {}) => patientBody(c.g, wood, { medicare_card_number: wood.medicare_card_number, medicare_irn: wood.medicare_irn, ...extra });
  const patientUrl = `${c.patientsUrl()}/${c.patientId}`;
  const prescriptions = prescriptionsPath(c);
  const json = { ...c.headers, 'content-type': 'application/json' };
  const existing = patient();
  const takenEmail = newEmail();
  const providerFields = providerDetails(ANNA);

  // In order: a case may act on what an earlier one made (the 200 of an existing patient, the 409 of a taken e-mail).
  return [
    request(OP.token, 200, 'POST', '/v1/token', tokenHeaders(c.g), { grantType: 'client_credentials', scope: ['create:patient'] }),
    request(OP.token, 400, 'POST', '/v1/token', { ...tokenHeaders(c.g), 'x-user-id': '' }, { grantType: 'client_credentials', scope: ['create:patient'] }),
    request(OP.token, 401, 'POST', '/v1/token', { ...tokenHeaders(c.g), 'x-partner-secret': 'wrong' }, { grantType: 'client_credentials', scope: ['create:patient'] }),
    request(OP.token, 422, 'POST', '/v1/token', tokenHeaders(c.g), { grantType: 'client_credentials', scope: ['read:everything'] }),

    request(OP.validate, 200, 'GET', `/v1/organizations/${c.g.organizationId}/validate`, c.headers),
    ...refusals(OP.validate, 'GET', `/v1/organizations/${c.g.organizationId}/validate`),

    request(OP.createPatient, 201, 'POST', c.patientsUrl(), c.headers, existing),
    request(OP.createPatient, 200, 'POST', c.patientsUrl(), c.headers, existing),
    request(OP.createPatient, 400, 'POST', c.patientsUrl(), json, '{"partner_patient_id": '),
    request(OP.createPatient, 409, 'POST', c.patientsUrl(), c.headers, patient({ partner_patient_id: duplicated })),
    request(OP.createPatient, 422, 'POST', c.patientsUrl(), c.headers, patient({ date_of_birth: '2999-01-01' })),

    request(OP.updatePatient, 200, 'PUT', patientUrl, c.headers, { title: 'Ms', phone: '0412345678' }),
    request(OP.updatePatient, 422, 'PUT', patientUrl, c.headers, { phone: '0299999999' }),
    ...refusals(OP.updatePatient, 'PUT', patientUrl, { title: 'Dr' }),

    request(OP.listPrescriptions, 200, 'GET', prescriptions, c.headers),
    request(OP.listPrescriptions, 400, 'GET', `${prescriptions}?limit=500`, c.headers),
    request(OP.listPrescriptions, 404, 'GET', `${c.patientsUrl()}/${UNKNOWN_ID}/prescriptions`, c.headers),
    ...refusals(OP.listPrescriptions, 'GET', prescriptions),

    request(OP.readPrescription, 200, 'GET', `${prescriptions}/${scid}`, c.headers),
    request(OP.readPrescription, 404, 'GET', `${prescriptions}/${newScid()}`, c.headers),
    ...refusals(OP.readPrescription, 'GET', `${prescriptions}/${scid}`),

    request(OP.createUser, 201, 'POST', c.usersUrl, c.owner, { given_name: 'Ada', family_name: 'Admin', email: takenEmail, access_roles: ['admin'] }),
    request(OP.createUser, 201, 'POST', c.usersUrl, c.owner, { given_name: 'Pat', family_name: 'Partner', email: newEmail(), access_roles: ['admin'], partner_user_id: 'PARTNER#USER_1' }),
    request(OP.createUser, 400, 'POST', c.usersUrl, c.owner, { ...providerFields, email: newEmail(), access_roles: ['provider'], hpii_number: INVALID_HPII }),
    request(OP.createUser, 409, 'POST', c.usersUrl, c.owner, { given_name: 'Ada', family_name: 'Again', email: takenEmail }),
    request(OP.createUser, 422, 'POST', c.usersUrl, c.owner, { email: newEmail() }),
    ...refusals(OP.createUser, 'POST', c.usersUrl, { given_name: 'No', family_name: 'Scope', email: newEmail() }),

    request(OP.listUsers, 200, 'GET', c.usersUrl, c.owner),
    ...refusals(OP.listUsers, 'GET', c.usersUrl),

    request(OP.readUser, 200, 'GET', c.userUrl(), c.owner),
    request(OP.readUser, 404, 'GET', c.userUrl(UNKNOWN_ID), c.owner),
    ...refusals(OP.readUser, 'GET', c.userUrl()),

    request(OP.updateUser, 200, 'PUT', c.userUrl(), c.owner, { full_name: 'Dr Anna Smith' }),
    request(OP.updateUser, 400, 'PUT', c.userUrl(memberId), c.owner, { provider_details: providerDetails(ANNA, { hpii_number: INVALID_HPII }) }),
    request(OP.updateUser, 404, 'PUT', c.userUrl(UNKNOWN_ID), c.owner, { full_name: 'Nobody' }),
    request(OP.updateUser, 409, 'PUT', c.userUrl(memberId), c.owner, { provider_details: providerDetails(ANNA) }),
    request(OP.updateUser, 422, 'PUT', c.userUrl(memberId), c.owner, { provider_details: { sex: 'X' } }),
    ...refusals(OP.updateUser, 'PUT', c.userUrl(), { full_name: 'No Scope' }),

    request(OP.replaceRoles, 200, 'PUT', c.userUrl(memberId, '/roles'), c.owner, { access_roles: ['provider', 'admin'] }),
    request(OP.replaceRoles, 400, 'PUT', c.userUrl(memberId, '/roles'), c.owner, { access_roles: [] }),
    request(OP.replaceRoles, 404, 'PUT', c.userUrl(UNKNOWN_ID, '/roles'), c.owner, { access_roles: ['admin'] }),
    ...refusals(OP.replaceRoles, 'PUT', c.userUrl(memberId, '/roles'), { access_roles: ['admin'] }),

    request(OP.listUserDrugs, 200, 'GET', c.userDrugsUrl(), c.headers),
    ...refusals(OP.listUserDrugs, 'GET', c.userDrugsUrl()),

    request(OP.createUserDrug, 201, 'POST', c.userDrugsUrl(), c.headers, validDrug({ quantity: 30 })),
    request(OP.createUserDrug, 422, 'POST', c.userDrugsUrl(), c.headers, validDrug({ poison_class: '4' })),
    ...refusals(OP.createUserDrug, 'POST', c.userDrugsUrl(), validDrug()),

    request(OP.updateUserDrug, 200, 'PUT', `${c.userDrugsUrl()}/${userDrugId}`, c.headers, { brand_name: 'Amoxil' }),
    request(OP.updateUserDrug, 404, 'PUT', `${c.userDrugsUrl()}/${UNKNOWN_ID}`, c.headers, { brand_name: 'Amoxil' }),
    request(OP.updateUserDrug, 422, 'PUT', `${c.userDrugsUrl()}/${userDrugId}`, c.headers, { poison_class: 'S1' }),
    ...refusals(OP.updateUserDrug, 'PUT', `${c.userDrugsUrl()}/${userDrugId}`, { brand_name: 'Amoxil' }),

    ...refusals(OP.deleteUserDrug, 'DELETE', `${c.userDrugsUrl()}/${userDrugId}`),
    request(OP.deleteUserDrug, 200, 'DELETE', `${c.userDrugsUrl()}/${userDrugId}`, c.headers),

    request(OP.listCatalog, 200, 'GET', c.catalogUrl, c.owner),
    request(OP.listCatalog, 401, 'GET', c.catalogUrl, c.headers),
    ...refusals(OP.listCatalog, 'GET', c.catalogUrl),

    request(OP.createCatalogDrugs, 200, 'POST', c.catalogUrl, c.owner, [validDrug(), validDrug({ poison_class: 'S1' })]),
    request(OP.createCatalogDrugs, 400, 'POST', c.catalogUrl, c.owner, [validDrug({ poison_class: 'S1' })]),
    ...refusals(OP.createCatalogDrugs, 'POST', c.catalogUrl, [validDrug()]),

    request(OP.deleteCatalog, 400, 'DELETE', c.catalogUrl, c.owner),
    ...refusals(OP.deleteCatalog, 'DELETE', `${c.catalogUrl}?confirm=true`),
    request(OP.deleteCatalog, 200, 'DELETE', `${c.catalogUrl}?confirm=true`, c.owner),
  ];
}
