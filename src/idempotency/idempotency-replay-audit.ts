// A retry answered from its Idempotency-Key hands the caller the first answer again, which can
// show a patient, a prescription or a user: it is a read of that resource, and the audit trail
// records it as one (issue 38 item 4), naming the resource the first request made. Each create
// route says where its answer names that resource (`config.idempotent.resourceOf`).
import type { FastifyRequest } from 'fastify';
import type { AuditTrail } from '../audit/index.ts';

/** The resource a create made, as its replay's audit entry names it. */
export interface ReplayedResource {
  patientId?: string | null;
  scid?: string | null;
  targetUserId?: string | null;
  /** The resource's own id where it is none of the above (a custom drug). */
  subjectId?: string | null;
}

/** How a create route that takes an Idempotency-Key names what its first answer made. */
export interface IdempotentCreate {
  /** From the first answer's `data` (absent when it was an error) and the path's params. */
  resourceOf(data: Readonly<Record<string, unknown>>, params: Readonly<Record<string, string>>): ReplayedResource;
}

/** A string field of an answer's data, else null (a Pending prescription has no scid, for one). */
export function textField(data: Readonly<Record<string, unknown>>, name: string): string | null {
  const value = data[name];
  return typeof value === 'string' ? value : null;
}

function dataOf(body: string): Record<string, unknown> | undefined {
  try {
    const envelope = JSON.parse(body) as { data?: unknown };
    return envelope.data !== null && typeof envelope.data === 'object' && !Array.isArray(envelope.data) ? (envelope.data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Notes the replay of `request` (its first answer: `status`, `body`) against the resource it made. */
export async function noteIdempotentReplay(audit: AuditTrail, request: FastifyRequest, replayed: { status: number; body: string }): Promise<void> {
  const create = request.routeOptions.config.idempotent;
  const data = dataOf(replayed.body);
  const resource = create && data ? create.resourceOf(data, (request.params ?? {}) as Record<string, string>) : {};
  await audit.noteAccess({
    action: 'api.create_replayed',
    outcome: replayed.status < 400 ? 'success' : 'refused',
    patientId: resource.patientId ?? null,
    scid: resource.scid ?? null,
    targetUserId: resource.targetUserId ?? null,
    detail: { endpoint: `${request.method} ${request.routeOptions.url ?? ''}`, ...(resource.subjectId ? { subjectId: resource.subjectId } : {}) },
  });
}
