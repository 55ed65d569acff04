// Australian telephone numbers a practice may be reached on, in the national numbering plan's
// forms (ACMA's Telecommunications Numbering Plan, as summarised on the public pages about
// Australian telephone numbers, read 2026-11-28): a geographic number (trunk 0, area code 2, 3, 7
// or 8, eight digits), a mobile (04, 05), a 1300 or 1800 number (ten digits) or a 13 number
// (six digits). Spaces, hyphens and brackets are allowed as written; +61 stands for the trunk 0.

const NATIONAL = /^0[23478]\d{8}$|^05\d{8}$|^1[38]00\d{6}$|^13\d{4}$/;

/** The number as digits only (0 in place of +61), or null when it is none of the forms above. */
export function normaliseAustralianPhoneNumber(text: string): string | null {
  const compact = text.trim().replace(/[\s()-]/g, '');
  const digits = compact.startsWith('+61') ? `0${compact.slice(3)}` : compact;
  return NATIONAL.test(digits) ? digits : null;
}
