// The rules a prescription's PBS fields must meet, as one table: each row names the field its
// refusal is shown beside, says the rule in a sentence (docs/partners/prescriptions.md and the tests read it), and
// judges the facts of one prescription. The quantity's range (1 to 999) is a count limit
// (prescription-fields.ts) and is judged with the other counts.
import type { PbsItem } from '../medicines/index.ts';

export type { PbsItem };

/** Where the PBS facts come from. */
export interface PbsLookup {
  findPbsItem(pbsCode: string): Promise<PbsItem | undefined>;
}

/** What the rules read of one prescription, once the body's fields are read. */
export interface RuleFacts {
  /** The PBS code sent (upper-case), if any. */
  pbsCode: string | undefined;
  /** The Schedule's item of that code; undefined when there is no code or the Schedule has no such item. */
  item: PbsItem | undefined;
  privatePrescription: boolean;
  /** undefined: absent, or already refused by its own limits. */
  quantity: number | undefined;
  repeats: number | undefined;
  authorityNumber: string | undefined;
  phoneApprovalNumber: string | undefined;
  patientHasDvaFileNumber: boolean;
}

export interface PrescriptionRule {
  /** A short stable name, for tests and logs. */
  rule: string;
  /** The body field the refusal is about (the portal shows it beside the field it comes from). */
  field: 'pbs_code' | 'pbsdva_authority_number' | 'quantity' | 'repeats';
  /** The rule in one sentence. */
  summary: string;
  /** Why these facts break the rule (a message about the field: "must ...", "is ..."); undefined: they keep it. */
  refusal(facts: RuleFacts): string | undefined;
}

const isPbs = (f: RuleFacts): f is RuleFacts & { pbsCode: string; item: PbsItem } => f.pbsCode !== undefined && f.item !== undefined && !f.privatePrescription;

const isStreamlinedCode = (f: RuleFacts & { item: PbsItem }, code: string | undefined): boolean =>
  code !== undefined && f.item.streamlined_codes.includes(code);

/**
 * An authority approval (by telephone, or online in pbsdva_authority_number) lets a PBS
 * prescription exceed the item's maximum quantity or repeats; a streamlined code does not.
 */
function hasAuthorityApproval(f: RuleFacts & { item: PbsItem }): boolean {
  if (f.phoneApprovalNumber !== undefined) return true;
  return f.authorityNumber !== undefined && !isStreamlinedCode(f, f.authorityNumber);
}

function describeCodes(item: PbsItem): string {
  return item.streamlined_codes.length === 0 ? 'the Schedule lists none' : item.streamlined_codes.join(', ');
}

export const PRESCRIPTION_RULES: readonly PrescriptionRule[] = [
  {
    rule: 'private-carries-no-pbs-code',
    field: 'pbs_code',
    summary: 'A private prescription (private_prescription true) carries no PBS code.',
    refusal: (f) => (f.privatePrescription && f.pbsCode !== undefined ? 'must be left out of a private prescription (private_prescription is true)' : undefined),
  },
  {
    rule: 'pbs-code-in-schedule',
    field: 'pbs_code',
    summary: 'A PBS code names an item of the current PBS Schedule.',
    refusal: (f) => (f.pbsCode !== undefined && f.item === undefined && !f.privatePrescription ? `is not an item of the current PBS Schedule (${f.pbsCode})` : undefined),
  },
  {
    rule: 'rpbs-item-needs-dva-file-number',
    field: 'pbs_code',
    summary: 'An RPBS-only item is prescribed only for a patient with a DVA file number.',
    refusal: (f) =>
      isPbs(f) && f.item.rpbs_only && !f.patientHasDvaFileNumber
        ? `is ${f.pbsCode}, a Repatriation (RPBS) item: it can be prescribed only for a patient with a DVA file number`
        : undefined,
  },
  {
    rule: 'authority-item-needs-approval-number',
    field: 'pbsdva_authority_number',
    summary: 'An authority-required item needs its approval number (pbsdva_authority_number, or phone_approval_authority_number).',
    refusal: (f) =>
      isPbs(f) && f.item.benefit_type === 'authority_required' && f.authorityNumber === undefined && f.phoneApprovalNumber === undefined
        ? `is required: ${f.pbsCode} is an authority-required PBS item; enter its authority approval number`
        : undefined,
  },
  {
    rule: 'streamlined-item-needs-its-code',
    field: 'pbsdva_authority_number',
    summary: "A streamlined authority item needs one of the item's streamlined codes in pbsdva_authority_number.",
    refusal: (f) => {
      if (!isPbs(f) || f.item.benefit_type !== 'streamlined' || isStreamlinedCode(f, f.authorityNumber)) return undefined;
      const codes = describeCodes(f.item);
      return f.authorityNumber === undefined
        ? `is required: ${f.pbsCode} is a streamlined authority item; enter one of its streamlined codes (${codes})`
        : `is not a streamlined code of ${f.pbsCode} (its codes: ${codes})`;
    },
  },
  {
    rule: 'pbs-maximum-quantity',
    field: 'quantity',
    summary: "A PBS prescription's quantity is at most the item's maximum quantity, unless an authority approval number is given.",
    refusal: (f) =>
      isPbs(f) && f.quantity !== undefined && f.quantity > f.item.max_quantity && !hasAuthorityApproval(f)
        ? `must not exceed ${f.item.max_quantity}, the PBS maximum quantity of ${f.pbsCode}, without an authority approval number`
        : undefined,
  },
  {
    rule: 'pbs-maximum-repeats',
    field: 'repeats',
    summary: "A PBS prescription's repeats are at most the item's maximum repeats, unless an authority approval number is given.",
    refusal: (f) =>
      isPbs(f) && f.repeats !== undefined && f.repeats > f.item.max_repeats && !hasAuthorityApproval(f)
        ? `must not exceed ${f.item.max_repeats}, the PBS maximum repeats of ${f.pbsCode}, without an authority approval number`
        : undefined,
  },
];

/** Every rule these facts break, as the field it is about and why. */
export function judgeRules(facts: RuleFacts): Array<{ rule: string; field: PrescriptionRule['field']; message: string }> {
  return PRESCRIPTION_RULES.flatMap(({ rule, field, refusal }) => {
    const message = refusal(facts);
    return message === undefined ? [] : [{ rule, field, message }];
  });
}
