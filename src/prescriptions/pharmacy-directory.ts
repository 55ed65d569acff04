// The sandbox's pharmacy directory: a few fictional pharmacies a prescription can be sent to
// (delivery recipient_type PHARMACY), each reachable by e-mail and SMS. docs/partners/prescriptions.md lists them;
// a test checks that it lists every one. Nothing is sent to them: deliveries are recorded.

export interface Pharmacy {
  pharmacy_id: string;
  name: string;
  email: string;
  /** Australian mobile, 04xxxxxxxx (the SMS destination; numbers ACMA reserves for fiction). */
  mobile: string;
}

export const SANDBOX_PHARMACIES: readonly Pharmacy[] = [
  { pharmacy_id: '5b0e3c1a-7f2d-4e8b-9a61-0c4d2e7f1a01', name: 'Bayside Sandbox Pharmacy', email: 'scripts@bayside-pharmacy.example', mobile: '0491570006' },
  { pharmacy_id: '5b0e3c1a-7f2d-4e8b-9a61-0c4d2e7f1a02', name: 'Northside Sandbox Chemist', email: 'erx@northside-chemist.example', mobile: '0491570156' },
  { pharmacy_id: '5b0e3c1a-7f2d-4e8b-9a61-0c4d2e7f1a03', name: 'Harbour Sandbox Dispensary', email: 'orders@harbour-dispensary.example', mobile: '0491570157' },
];

export function findSandboxPharmacy(pharmacyId: string): Pharmacy | undefined {
  const id = pharmacyId.toLowerCase();
  return SANDBOX_PHARMACIES.find((pharmacy) => pharmacy.pharmacy_id === id);
}
