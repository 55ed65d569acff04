// Format checks for a Medicare card number (10 digits) and the IRN that picks one person on it.

const CARD_NUMBER_SHAPE = /^[2-6]\d{9}$/;

// Weights for the 8-digit identifier; the weighted sum mod 10 is the 9th (check) digit.
const CHECK_DIGIT_WEIGHTS = [1, 3, 7, 9, 1, 3, 7, 9] as const;

function digitAt(value: string, index: number): number {
  return value.charCodeAt(index) - 48;
}

export function isValidMedicareCardNumber(value: string): boolean {
  if (!CARD_NUMBER_SHAPE.test(value)) return false;
  const weightedSum = CHECK_DIGIT_WEIGHTS.reduce(
    (sum, weight, index) => sum + weight * digitAt(value, index),
    0,
  );
  const checkDigit = digitAt(value, 8);
  const issueNumber = digitAt(value, 9);
  return weightedSum % 10 === checkDigit && issueNumber !== 0;
}

export function isValidMedicareIrn(value: string): boolean {
  return /^[1-9]$/.test(value);
}
