// The scopes a token can carry (the vendor's full list, and our sandbox's own) and the aliases
// partners send.
import type { Mode } from '../config.ts';

export const SCOPES = [
  'create:patient',
  'read:patient',
  'update:patient',
  'read:patient_prescription',
  'create:user',
  'read:user',
  'read:users',
  'update:user',
  'delete:user',
  'read:custom_drug',
  'create:custom_drug',
  'update:custom_drug',
  'delete:custom_drug',
  // The sandbox test helpers (make prescriptions happen without the portal).
  'sandbox:prescribe',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Scopes that exist only in sandbox mode: in production they cannot be requested. */
export const SANDBOX_ONLY_SCOPES: readonly Scope[] = ['sandbox:prescribe'];

/** The scopes a token request may name on a server in this mode. */
export function requestableScopes(mode: Mode): Scope[] {
  return mode === 'sandbox' ? [...SCOPES] : SCOPES.filter((scope) => !SANDBOX_ONLY_SCOPES.includes(scope));
}

/** Names accepted in a token request for a canonical scope. */
export const SCOPE_ALIASES: Record<string, Scope> = { READ_USER: 'read:users' };

export const GRANT_TYPES = ['client_credentials'] as const;

export function canonicalScope(requested: string): Scope | undefined {
  if ((SCOPES as readonly string[]).includes(requested)) return requested as Scope;
  return SCOPE_ALIASES[requested];
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
