// What a token message says: who prescribed and the token link, nothing else. Never the
// medicine, the patient's name or any identifier (the message crosses carriers and inboxes).

export interface TokenMessageRequest {
  prescriptionId: string;
  organizationId: string;
  channel: 'SMS' | 'EMAIL';
  /** The phone number or e-mail address the token goes to. */
  destination: string;
  /** The prescriber as the prescription names them, e.g. "Dr Jane Citizen". */
  prescriberName: string;
}

export const TOKEN_EMAIL_SUBJECT = 'Your electronic prescription';

/** Composed when the message is sent: the token page's URL is never stored (its key is derived from the secret key). */
export function composeTokenMessage(request: { prescriberName: string; tokenUrl: string }): string {
  return `${request.prescriberName} has sent you an electronic prescription. Show this link to your pharmacy: ${request.tokenUrl}`;
}

/** The prescriber's name as a message shows it. */
export function prescriberNameOf(prescriber: { title: string | null; given_name: string; family_name: string }): string {
  return [prescriber.title, prescriber.given_name, prescriber.family_name].filter((part) => part).join(' ');
}

/** A destination as logs, audit entries and lists show it: only enough to tell two apart. */
export function maskDestination(destination: string): string {
  const at = destination.indexOf('@');
  if (at > 0) return `${destination.slice(0, 1)}***${destination.slice(at)}`;
  return destination.length > 3 ? `***${destination.slice(-3)}` : '***';
}
