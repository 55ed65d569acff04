// Schema shapes TypeBox lacks: a string enum that validates and documents as `enum`
// (Ajv then reports the allowed values), instead of an anyOf of literals.
import { Type, type SchemaOptions, type TUnsafe } from '@sinclair/typebox';

export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
