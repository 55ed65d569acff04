// The fake's own reading of the HI Service's country codes (ABS Standard Australian
// Classification of Countries, 4 digits) back to ISO 3166-1 alpha-2, for the countries test
// fixtures use. Kept apart from erx's mapping on purpose: a disagreement shows up as a refused
// request. The United Kingdom has no code of its own: its four countries read as their
// ISO 3166-2 codes (GB-ENG, GB-NIR, GB-SCT, GB-WLS).
const ISO_BY_SACC: Record<string, string> = {
  '1101': 'AU',
  '1201': 'NZ',
  '1302': 'PG',
  '1502': 'FJ',
  '2102': 'GB-ENG',
  '2104': 'GB-NIR',
  '2105': 'GB-SCT',
  '2106': 'GB-WLS',
  '2201': 'IE',
  '2303': 'FR',
  '2304': 'DE',
  '2308': 'NL',
  '3104': 'IT',
  '3108': 'ES',
  '5203': 'MY',
  '5204': 'PH',
  '5205': 'SG',
  '6101': 'CN',
  '6102': 'HK',
  '6201': 'JP',
  '6203': 'KR',
  '7103': 'IN',
  '8102': 'CA',
  '8104': 'US',
  '9225': 'ZA',
};

export function countryOfSaccCode(code: string): string | undefined {
  return ISO_BY_SACC[code];
}
