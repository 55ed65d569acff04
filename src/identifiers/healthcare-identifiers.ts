// Format checks for the 16-digit numbers issued by the HI Service: IHI, HPI-I and HPI-O.
// A passing number is well formed, not necessarily issued; only the HI Service can say that.

const SIXTEEN_DIGITS = /^\d{16}$/;

// The 6-digit issuer prefix names the kind of identifier.
const HI_NUMBER_PREFIXES = {
  ihi: '800360',
  hpii: '800361',
  hpio: '800362',
} as const;

type HiNumberKind = keyof typeof HI_NUMBER_PREFIXES;

export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = digits.charCodeAt(index) - 48;
    const isDoubled = (digits.length - 1 - index) % 2 === 1;
    if (isDoubled) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function isValidHiNumber(value: string, kind: HiNumberKind): boolean {
  return (
    SIXTEEN_DIGITS.test(value) && value.startsWith(HI_NUMBER_PREFIXES[kind]) && passesLuhn(value)
  );
}

export function isValidIhi(value: string): boolean {
  return isValidHiNumber(value, 'ihi');
}

export function isValidHpii(value: string): boolean {
  return isValidHiNumber(value, 'hpii');
}

export function isValidHpio(value: string): boolean {
  return isValidHiNumber(value, 'hpio');
}
