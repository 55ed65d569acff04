// The token message a create or a reissue leaves in its unit of work: to the prescription's
// current delivery destination, naming the prescriber, and nothing else. The link is not part of
// it: the runner composes the message when it sends it, deriving the token page's key
// (tokenPageUrlOf below, handed to token delivery by features.ts). It is sent only once the change commits.
import type { Work } from '../platform/db/unit-of-work.ts';
import { decryptSecret } from '../platform/secrets.ts';
import { prescriberNameOf, tokenMessages } from '../token-delivery/index.ts';
import { tokenPageUrl } from './prescription-view.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { findTokenPageKeySource, type PrescriptionRow } from './prescriptions-store.ts';
import { tokenPageKeyOf, tokenPageKeyOfRow } from './token-page-keys.ts';

type MessageColumns = Pick<
  PrescriptionRow,
  'id' | 'organization_id' | 'delivery_method' | 'delivery_destination_encrypted' | 'prescriber_title' | 'prescriber_given_name' | 'prescriber_family_name'
>;

export function recordTokenMessage(ctx: { secretKey: Buffer }, work: Work, row: MessageColumns): void {
  if (!row.delivery_destination_encrypted) return;
  work.record(tokenMessages, {
    prescriptionId: row.id,
    organizationId: row.organization_id,
    channel: row.delivery_method === 'SMS' ? 'SMS' : 'EMAIL',
    destination: decryptSecret(row.delivery_destination_encrypted, ctx.secretKey),
    prescriberName: prescriberNameOf({ title: row.prescriber_title, given_name: row.prescriber_given_name, family_name: row.prescriber_family_name }),
  });
}

/**
 * The token page's URL as a message carries it: its key derived from the prescription's id and
 * the secret key, or, for a prescription made before keys were derived, the key it kept sealed
 * (the only one its page opens by).
 */
export async function tokenPageUrlOf(ctx: { db: Kysely<Database>; publicUrl: string; secretKey: Buffer }, prescriptionId: string): Promise<string> {
  const stored = await findTokenPageKeySource(ctx.db, prescriptionId);
  return tokenPageUrl(ctx.publicUrl, stored ? tokenPageKeyOfRow(stored, ctx.secretKey) : tokenPageKeyOf(prescriptionId, ctx.secretKey));
}
