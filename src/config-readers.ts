// The readers every part of the configuration uses: a setting's text (its default when unset),
// whole numbers in a range, one of a few choices, all-or-none groups; a bad value is a
// ConfigError that names the variable.
import { SETTINGS } from './config-settings.ts';

export type Mode = 'sandbox' | 'production';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

export function readText(env: Env, key: keyof typeof SETTINGS): string {
  const setting = SETTINGS[key];
  const value = env[setting.env]?.trim();
  return value === undefined || value === '' ? setting.default : value;
}

export function readOptional(env: Env, key: keyof typeof SETTINGS): string | undefined {
  return readText(env, key) || undefined;
}

export function readInteger(env: Env, key: keyof typeof SETTINGS, min: number, max: number): number {
  const text = readText(env, key);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new ConfigError(`${SETTINGS[key].env} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/** All of a group's settings, or none of them: a partial group names the missing ones. */
export function readGroup(env: Env, keys: ReadonlyArray<keyof typeof SETTINGS>, what: string): string[] | undefined {
  const values = keys.map((key) => readText(env, key));
  if (values.every((value) => value === '')) return undefined;
  const missing = keys.filter((_, i) => values[i] === '').map((key) => SETTINGS[key].env);
  if (missing.length > 0) throw new ConfigError(`${what} is partly configured: set ${missing.join(', ')} too (or none of them)`);
  return values;
}

export function readChoice<Choice extends string>(env: Env, key: keyof typeof SETTINGS, choices: readonly Choice[]): Choice {
  const text = readText(env, key);
  if (!(choices as readonly string[]).includes(text)) throw new ConfigError(`${SETTINGS[key].env} must be ${choices.join(' or ')}, got "${text}"`);
  return text as Choice;
}
