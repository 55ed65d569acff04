// Paper prescriptions (prescription_type PAPER): printed and handed to the patient, so they
// have no electronic delivery. The delivery columns, required since migration 0006, may now be
// null; every electronic prescription still has them (the create path requires a delivery).
import type { Kysely } from 'kysely';
import { dropNotNull } from '../src/platform/db/drop-not-null.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await dropNotNull(db, 'prescriptions', ['delivery_method', 'delivery_recipient_type', 'delivery_destination']);
}
