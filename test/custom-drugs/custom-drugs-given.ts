// Factories for the custom drug tests: valid bodies, and drugs created through the API.
import { call, type TestClient } from '../given.ts';
import type { TestApp } from '../test-app.ts';

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

/** Bulk-creates `items` in the organization catalog and returns the created ids in order. */
export async function givenCatalogDrugs(t: TestApp, c: TestClient, items: Record<string, unknown>[]): Promise<string[]> {
  const response = await call(t, 'POST', c.catalogUrl, c.owner, items);
  if (response.statusCode !== 200) throw new Error(`bulk create failed: ${response.statusCode} ${response.body}`);
  return (response.json().data.created as Array<{ custom_drug_id: string }>).map((entry) => entry.custom_drug_id);
}

export async function givenUserDrug(t: TestApp, c: TestClient, body: Record<string, unknown>, userId = c.g.userId): Promise<string> {
  const response = await call(t, 'POST', c.userDrugsUrl(userId), c.owner, body);
  if (response.statusCode !== 201) throw new Error(`user drug create failed: ${response.statusCode} ${response.body}`);
  return response.json().data.custom_drug_id as string;
}

export function fieldsOf(response: { json(): { error: { validation: Array<{ field: string }> } } }): string[] {
  return response.json().error.validation.map((issue) => issue.field);
}
