export { isValidHpii, isValidHpio, isValidIhi } from './healthcare-identifiers.ts';
export { isValidMedicareCardNumber, isValidMedicareIrn } from './medicare.ts';
export { isValidDvaFileNumber } from './dva.ts';
export { isValidAustralianMobile, normaliseAustralianMobile } from './australian-mobile.ts';
export { isValidEmail, normaliseEmail } from './email.ts';
export { isCalendarDate, isFutureDate } from './calendar-date.ts';
export { AUSTRALIAN_POSTCODE_PATTERN, AUSTRALIAN_STATES, type AustralianState, isAustralianPostcode, readAustralianState } from './australian-address.ts';
export { normaliseAustralianPhoneNumber } from './australian-phone.ts';
