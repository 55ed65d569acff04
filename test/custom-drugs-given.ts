// Factories and request helpers for the custom drug tests.
import { bearer, givenIntegration, requestToken, type GivenIntegration } from './given.ts';
import type { TestApp } from './test-app.ts';

/** A complete, valid create body (every required field, no optional one). */
export function validDrug(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    item_generic_name: 'Amoxicillin',
    item_strength: '500mg',
    item_form: 'Capsule',
    route_of_administration: 'Oral',
    quantity: '20',
    max_repeats: '2',
    poison_class: 'S4',
    ...overrides,
  };
}

export interface DrugClient {
  g: GivenIntegration;
  /** Headers of the organization's owner (owner and admin roles). */
  owner: Record<string, string>;
  /** Headers of the prescriber (role provider). */
  prescriber: Record<string, string>;
  catalogUrl: string;
  userDrugsUrl(userId?: string): string;
}

export async function givenDrugClient(t: TestApp): Promise<DrugClient> {
  const g = await givenIntegration(t);
  const owner = bearer(await requestToken(t, g, undefined, g.ownerId), g);
  const prescriber = bearer(await requestToken(t, g, undefined, g.userId), g);
  return {
    g,
    owner,
    prescriber,
    catalogUrl: `/v1/organizations/${g.organizationId}/custom-drugs`,
    userDrugsUrl: (userId = g.userId) => `/v1/organizations/${g.organizationId}/users/${userId}/custom-drugs`,
  };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export function call(t: TestApp, method: Method, url: string, headers: Record<string, string>, payload?: unknown) {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
}

/** Bulk-creates `items` in the organization catalog and returns the created ids in order. */
export async function givenCatalogDrugs(t: TestApp, c: DrugClient, items: Record<string, unknown>[]): Promise<string[]> {
  const response = await call(t, 'POST', c.catalogUrl, c.owner, items);
  if (response.statusCode !== 200) throw new Error(`bulk create failed: ${response.statusCode} ${response.body}`);
  return (response.json().data.created as Array<{ custom_drug_id: string }>).map((entry) => entry.custom_drug_id);
}

export async function givenUserDrug(t: TestApp, c: DrugClient, body: Record<string, unknown>, userId = c.g.userId): Promise<string> {
  const response = await call(t, 'POST', c.userDrugsUrl(userId), c.owner, body);
  if (response.statusCode !== 201) throw new Error(`user drug create failed: ${response.statusCode} ${response.body}`);
  return response.json().data.custom_drug_id as string;
}

export function fieldsOf(response: { json(): { error: { validation: Array<{ field: string }> } } }): string[] {
  return response.json().error.validation.map((issue) => issue.field);
}
