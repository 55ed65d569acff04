// The token message a create or a reissue leaves in its unit of work: to the prescription's
// current delivery destination, naming the prescriber and carrying the token page's link, and
// nothing else (token-delivery/token-message-text.ts). It is sent only once the change commits.
import type { Work } from '../platform/db/unit-of-work.ts';
import { prescriberNameOf, tokenMessages } from '../token-delivery/index.ts';
import { tokenPageUrl } from './prescription-view.ts';
import type { PrescriptionRow } from './prescriptions-store.ts';
import { tokenPageKeyOfRow } from './token-page-keys.ts';

type MessageColumns = Pick<
  PrescriptionRow,
  'id' | 'token' | 'organization_id' | 'delivery_method' | 'delivery_destination' | 'prescriber_title' | 'prescriber_given_name' | 'prescriber_family_name'
>;

export function recordTokenMessage(ctx: { publicUrl: string; secretKey: Buffer }, work: Work, row: MessageColumns): void {
  if (!row.delivery_destination) return;
  work.record(tokenMessages, {
    prescriptionId: row.id,
    organizationId: row.organization_id,
    channel: row.delivery_method === 'SMS' ? 'SMS' : 'EMAIL',
    destination: row.delivery_destination,
    prescriberName: prescriberNameOf({ title: row.prescriber_title, given_name: row.prescriber_given_name, family_name: row.prescriber_family_name }),
    tokenUrl: tokenPageUrl(ctx.publicUrl, tokenPageKeyOfRow(row, ctx.secretKey)),
  });
}
