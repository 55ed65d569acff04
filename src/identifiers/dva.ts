// Format check for a DVA file number (METEOR value domain; there is no check digit).

// State code, then a 7-character file number (war code + digits, or a blank standing in
// for "no war code" + 6 digits), then an optional segment letter for dependants.
const DVA_FILE_NUMBER =
  /^[NVQWST](?:[A-Z]\d{6}|[A-Z]{2}\d{5}|[A-Z]{3}\d{4}| \d{6})[A-Z]?$/;

export function isValidDvaFileNumber(value: string): boolean {
  return DVA_FILE_NUMBER.test(value.toUpperCase());
}
