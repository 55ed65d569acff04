export { isValidHpii, isValidHpio, isValidIhi, passesLuhn } from './healthcare-identifiers.ts';
export { isValidMedicareCardNumber, isValidMedicareIrn } from './medicare.ts';
export { isValidDvaFileNumber } from './dva.ts';
export { isValidAustralianMobile, normaliseAustralianMobile } from './australian-mobile.ts';
export { isValidEmail, normaliseEmail } from './email.ts';
export { isCalendarDate, isFutureDate, todayInAustralia } from './calendar-date.ts';
