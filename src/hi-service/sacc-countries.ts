// The HI Service names a country by its 4-digit SACC code (the ABS Standard Australian
// Classification of Countries); erx takes ISO 3166-1 alpha-2 codes. This is the one table
// between them. Every code is one the HI Service's CountryType (CommonCoreDatatypes 3.0)
// accepts: that list predates a few SACC 2016 splits, so where SACC 2016 gives a territory a
// newer code the table sends the code that covered it before, as the comment says.
// The United Kingdom has no SACC code of its own, only its four countries: those are taken as
// their ISO 3166-2 codes (GB-ENG, GB-SCT, GB-WLS, GB-NIR) and a bare GB is refused.

export const SACC_COUNTRY_CODES: Readonly<Record<string, string>> = {
  AU: '1101', // Australia
  NF: '1102', // Norfolk Island
  CX: '1199', // Christmas Island (Australian External Territories nec)
  CC: '1199', // Cocos (Keeling) Islands (Australian External Territories nec)
  HM: '1199', // Heard Island and McDonald Islands (Australian External Territories nec)
  NZ: '1201', // New Zealand
  NC: '1301', // New Caledonia
  PG: '1302', // Papua New Guinea
  SB: '1303', // Solomon Islands
  VU: '1304', // Vanuatu
  GU: '1401', // Guam
  KI: '1402', // Kiribati
  MH: '1403', // Marshall Islands
  FM: '1404', // Micronesia, Federated States of
  NR: '1405', // Nauru
  MP: '1406', // Northern Mariana Islands
  PW: '1407', // Palau
  CK: '1501', // Cook Islands
  FJ: '1502', // Fiji
  PF: '1503', // French Polynesia
  NU: '1504', // Niue
  WS: '1505', // Samoa
  AS: '1506', // Samoa, American
  TK: '1507', // Tokelau
  TO: '1508', // Tonga
  TV: '1511', // Tuvalu
  WF: '1512', // Wallis and Futuna
  PN: '1599', // Pitcairn Islands (Polynesia nec; SACC 2016: 1513)
  'GB-ENG': '2102', // England
  IM: '2103', // Isle of Man
  'GB-NIR': '2104', // Northern Ireland
  'GB-SCT': '2105', // Scotland
  'GB-WLS': '2106', // Wales
  GG: '2101', // Guernsey (Channel Islands; SACC 2016: 2107)
  JE: '2101', // Jersey (Channel Islands; SACC 2016: 2108)
  IE: '2201', // Ireland
  AT: '2301', // Austria
  BE: '2302', // Belgium
  FR: '2303', // France
  DE: '2304', // Germany
  LI: '2305', // Liechtenstein
  LU: '2306', // Luxembourg
  MC: '2307', // Monaco
  NL: '2308', // Netherlands
  CH: '2311', // Switzerland
  DK: '2401', // Denmark
  FO: '2402', // Faroe Islands
  FI: '2403', // Finland
  AX: '2403', // Aland Islands (Finland; SACC 2016: 2408)
  GL: '2404', // Greenland
  IS: '2405', // Iceland
  NO: '2406', // Norway
  SJ: '2406', // Svalbard and Jan Mayen (Norway)
  SE: '2407', // Sweden
  AD: '3101', // Andorra
  GI: '3102', // Gibraltar
  VA: '3103', // Holy See
  IT: '3104', // Italy
  MT: '3105', // Malta
  PT: '3106', // Portugal
  SM: '3107', // San Marino
  ES: '3108', // Spain
  AL: '3201', // Albania
  BA: '3202', // Bosnia and Herzegovina
  BG: '3203', // Bulgaria
  HR: '3204', // Croatia
  CY: '3205', // Cyprus
  MK: '3206', // North Macedonia
  GR: '3207', // Greece
  MD: '3208', // Moldova
  RO: '3211', // Romania
  SI: '3212', // Slovenia
  ME: '3213', // Montenegro (Serbia and Montenegro; SACC 2016: 3214)
  RS: '3213', // Serbia (Serbia and Montenegro; SACC 2016: 3215)
  BY: '3301', // Belarus
  CZ: '3302', // Czechia
  EE: '3303', // Estonia
  HU: '3304', // Hungary
  LV: '3305', // Latvia
  LT: '3306', // Lithuania
  PL: '3307', // Poland
  RU: '3308', // Russian Federation
  SK: '3311', // Slovakia
  UA: '3312', // Ukraine
  DZ: '4101', // Algeria
  EG: '4102', // Egypt
  LY: '4103', // Libya
  MA: '4104', // Morocco
  SD: '4105', // Sudan
  SS: '4105', // South Sudan (Sudan; SACC 2016: 4111)
  TN: '4106', // Tunisia
  EH: '4107', // Western Sahara
  BH: '4201', // Bahrain
  PS: '4202', // Gaza Strip and West Bank
  IR: '4203', // Iran
  IQ: '4204', // Iraq
  IL: '4205', // Israel
  JO: '4206', // Jordan
  KW: '4207', // Kuwait
  LB: '4208', // Lebanon
  OM: '4211', // Oman
  QA: '4212', // Qatar
  SA: '4213', // Saudi Arabia
  SY: '4214', // Syria
  TR: '4215', // Turkey
  AE: '4216', // United Arab Emirates
  YE: '4217', // Yemen
  MM: '5101', // Myanmar
  KH: '5102', // Cambodia
  LA: '5103', // Laos
  TH: '5104', // Thailand
  VN: '5105', // Vietnam
  BN: '5201', // Brunei Darussalam
  ID: '5202', // Indonesia
  MY: '5203', // Malaysia
  PH: '5204', // Philippines
  SG: '5205', // Singapore
  TL: '5206', // Timor-Leste
  CN: '6101', // China (excludes SARs and Taiwan)
  HK: '6102', // Hong Kong (SAR of China)
  MO: '6103', // Macau (SAR of China)
  MN: '6104', // Mongolia
  TW: '6105', // Taiwan
  JP: '6201', // Japan
  KP: '6202', // Korea, Democratic People's Republic of (North)
  KR: '6203', // Korea, Republic of (South)
  BD: '7101', // Bangladesh
  BT: '7102', // Bhutan
  IN: '7103', // India
  MV: '7104', // Maldives
  NP: '7105', // Nepal
  PK: '7106', // Pakistan
  LK: '7107', // Sri Lanka
  AF: '7201', // Afghanistan
  AM: '7202', // Armenia
  AZ: '7203', // Azerbaijan
  GE: '7204', // Georgia
  KZ: '7205', // Kazakhstan
  KG: '7206', // Kyrgyzstan
  TJ: '7207', // Tajikistan
  TM: '7208', // Turkmenistan
  UZ: '7211', // Uzbekistan
  BM: '8101', // Bermuda
  CA: '8102', // Canada
  PM: '8103', // St Pierre and Miquelon
  US: '8104', // United States of America
  AR: '8201', // Argentina
  BO: '8202', // Bolivia
  BR: '8203', // Brazil
  CL: '8204', // Chile
  CO: '8205', // Colombia
  EC: '8206', // Ecuador
  FK: '8207', // Falkland Islands
  GF: '8208', // French Guiana
  GY: '8211', // Guyana
  PY: '8212', // Paraguay
  PE: '8213', // Peru
  SR: '8214', // Suriname
  UY: '8215', // Uruguay
  VE: '8216', // Venezuela
  GS: '8299', // South Georgia and the South Sandwich Islands (South America nec)
  BZ: '8301', // Belize
  CR: '8302', // Costa Rica
  SV: '8303', // El Salvador
  GT: '8304', // Guatemala
  HN: '8305', // Honduras
  MX: '8306', // Mexico
  NI: '8307', // Nicaragua
  PA: '8308', // Panama
  AI: '8401', // Anguilla
  AG: '8402', // Antigua and Barbuda
  AW: '8403', // Aruba
  BS: '8404', // Bahamas
  BB: '8405', // Barbados
  KY: '8406', // Cayman Islands
  CU: '8407', // Cuba
  DM: '8408', // Dominica
  DO: '8411', // Dominican Republic
  GD: '8412', // Grenada
  GP: '8413', // Guadeloupe
  BL: '8413', // St Barthelemy (Guadeloupe; SACC 2016: 8431)
  MF: '8413', // St Martin, French part (Guadeloupe; SACC 2016: 8432)
  HT: '8414', // Haiti
  JM: '8415', // Jamaica
  MQ: '8416', // Martinique
  MS: '8417', // Montserrat
  BQ: '8418', // Bonaire, Sint Eustatius and Saba (Netherlands Antilles; SACC 2016: 8433)
  CW: '8418', // Curacao (Netherlands Antilles; SACC 2016: 8434)
  SX: '8418', // Sint Maarten, Dutch part (Netherlands Antilles; SACC 2016: 8435)
  PR: '8421', // Puerto Rico
  KN: '8422', // St Kitts and Nevis
  LC: '8423', // St Lucia
  VC: '8424', // St Vincent and the Grenadines
  TT: '8425', // Trinidad and Tobago
  TC: '8426', // Turks and Caicos Islands
  VG: '8427', // Virgin Islands, British
  VI: '8428', // Virgin Islands, United States
  BJ: '9101', // Benin
  BF: '9102', // Burkina Faso
  CM: '9103', // Cameroon
  CV: '9104', // Cabo Verde
  CF: '9105', // Central African Republic
  TD: '9106', // Chad
  CG: '9107', // Congo, Republic of
  CD: '9108', // Congo, Democratic Republic of
  CI: '9111', // Cote d'Ivoire
  GQ: '9112', // Equatorial Guinea
  GA: '9113', // Gabon
  GM: '9114', // Gambia
  GH: '9115', // Ghana
  GN: '9116', // Guinea
  GW: '9117', // Guinea-Bissau
  LR: '9118', // Liberia
  ML: '9121', // Mali
  MR: '9122', // Mauritania
  NE: '9123', // Niger
  NG: '9124', // Nigeria
  ST: '9125', // Sao Tome and Principe
  SN: '9126', // Senegal
  SL: '9127', // Sierra Leone
  TG: '9128', // Togo
  AO: '9201', // Angola
  BW: '9202', // Botswana
  BI: '9203', // Burundi
  KM: '9204', // Comoros
  DJ: '9205', // Djibouti
  ER: '9206', // Eritrea
  ET: '9207', // Ethiopia
  KE: '9208', // Kenya
  LS: '9211', // Lesotho
  MG: '9212', // Madagascar
  MW: '9213', // Malawi
  MU: '9214', // Mauritius
  YT: '9215', // Mayotte
  MZ: '9216', // Mozambique
  NA: '9217', // Namibia
  RE: '9218', // Reunion
  RW: '9221', // Rwanda
  SH: '9222', // St Helena
  SC: '9223', // Seychelles
  SO: '9224', // Somalia
  ZA: '9225', // South Africa
  SZ: '9226', // Eswatini
  TZ: '9227', // Tanzania
  UG: '9228', // Uganda
  ZM: '9231', // Zambia
  ZW: '9232', // Zimbabwe
};

/** ISO 3166-1 codes the HI Service has no one country code for, and why. */
export const COUNTRIES_WITHOUT_SACC_CODE: Readonly<Record<string, string>> = {
  GB: 'the HI Service takes the country of the United Kingdom: send GB-ENG, GB-SCT, GB-WLS or GB-NIR',
  AQ: 'SACC codes the Antarctic territories one by one, not Antarctica',
  BV: 'SACC has no code for Bouvet Island',
  IO: 'SACC has no code for the British Indian Ocean Territory',
  TF: 'SACC has no code for the French Southern Territories',
  UM: 'SACC has no code for the United States Minor Outlying Islands',
};

/** The SACC code of an ISO 3166-1 alpha-2 code (or GB-ENG/GB-SCT/GB-WLS/GB-NIR), any case; undefined when there is none. */
export function saccCodeOf(country: string): string | undefined {
  const key = country.trim().toUpperCase();
  return Object.hasOwn(SACC_COUNTRY_CODES, key) ? SACC_COUNTRY_CODES[key] : undefined;
}

/** Why a country value has no SACC code, as a clause for a validation message. */
export function describeMissingSaccCode(country: string): string {
  const key = country.trim().toUpperCase();
  const reason = Object.hasOwn(COUNTRIES_WITHOUT_SACC_CODE, key) ? COUNTRIES_WITHOUT_SACC_CODE[key] : undefined;
  return reason ?? 'it is not an ISO 3166-1 alpha-2 country code (for example NZ, US, FR; GB-ENG, GB-SCT, GB-WLS or GB-NIR for the United Kingdom)';
}
