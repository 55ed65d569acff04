// A pragmatic email check: catches typos and junk, not the whole of RFC 5321/5322.

const MAX_EMAIL_LENGTH = 254; // RFC 5321 path limit minus the angle brackets
const MAX_LOCAL_PART_LENGTH = 64;
const MAX_DOMAIN_LABEL_LENGTH = 63; // DNS label limit
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

function isValidDomain(domain: string): boolean {
  const labels = domain.split('.');
  return (
    labels.length >= 2 &&
    labels.every((label) => label.length <= MAX_DOMAIN_LABEL_LENGTH && DOMAIN_LABEL.test(label))
  );
}

export function isValidEmail(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH || /\s/.test(value)) return false;
  const parts = value.split('@');
  if (parts.length !== 2) return false;
  const [localPart = '', domain = ''] = parts;
  return (
    localPart.length > 0 && localPart.length <= MAX_LOCAL_PART_LENGTH && isValidDomain(domain)
  );
}

export function normaliseEmail(value: string): string {
  return value.trim().toLowerCase();
}
