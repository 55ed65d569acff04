// The audit trail's view of an IHI search: one `hi.ihi_search` entry per call the HI Service
// saw (each path tried), with the path, what it answered, how long it took and the identifier
// it searched by, masked. The mobile, e-mail and address paths search by demographics that
// never enter an entry, so their entries name the path only.
import { auditRecords, maskIdentifier, type AuditDetail, type AuditEvent, type AuditTrail } from '../audit/index.ts';
import type { IhiSearchIdentifiers, IhiSearchPath } from '../hi-service/index.ts';
import type { Work } from '../platform/db/unit-of-work.ts';
import type { SearchAttempt } from './ihi-search.ts';

function searchedBy(path: IhiSearchPath, identifiers: IhiSearchIdentifiers): Pick<AuditDetail, 'ihi' | 'medicare' | 'dva'> {
  if (path === 'ihi_number' && identifiers.ihi_number) return { ihi: maskIdentifier(identifiers.ihi_number) };
  if (path === 'medicare' && identifiers.medicare_card_number) return { medicare: maskIdentifier(identifiers.medicare_card_number) };
  if (path === 'dva' && identifiers.dva_file_number) return { dva: maskIdentifier(identifiers.dva_file_number) };
  return {};
}

/** The entry of one call; an answer (found or no match) is a success, a call that got none (unreachable, rejected) an error. */
export function ihiSearchEvent(attempt: SearchAttempt, identifiers: IhiSearchIdentifiers, patientId: string | null): AuditEvent {
  const answered = attempt.hiResult === 'found' || attempt.hiResult === 'no_match';
  return {
    action: 'hi.ihi_search',
    outcome: answered ? 'success' : 'error',
    patientId,
    detail: {
      searchPath: attempt.path,
      hiResult: attempt.hiResult,
      durationMs: attempt.durationMs,
      ...(attempt.reason === undefined ? {} : { reason: attempt.reason }),
      ...searchedBy(attempt.path, identifiers),
    },
  };
}

/** Notes each call as an access: written before the answer leaves, or with a change the request commits. */
export async function noteIhiSearches(
  audit: AuditTrail,
  attempts: readonly SearchAttempt[],
  identifiers: IhiSearchIdentifiers,
  patientId: string | null,
): Promise<void> {
  for (const attempt of attempts) await audit.noteAccess(ihiSearchEvent(attempt, identifiers, patientId));
}

/** Records each call in a change's unit of work: they commit with it (naming the patient it made, if it made one). */
export function recordIhiSearches(work: Work, attempts: readonly SearchAttempt[], identifiers: IhiSearchIdentifiers, patientId: string | null): void {
  for (const attempt of attempts) work.record(auditRecords, ihiSearchEvent(attempt, identifiers, patientId));
}
