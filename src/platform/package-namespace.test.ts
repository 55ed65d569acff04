import { describe, expect, it } from 'vitest';
import { packageExports } from './package-namespace.ts';

describe('packageExports', () => {
  const exports = { Agent: class {}, request: () => undefined };
  it.each([
    ['as a bundle gives a CommonJS package: default alone', { default: exports }, exports],
    ["as Node gives it: named exports beside default", { ...exports, default: exports }, { ...exports, default: exports }],
    ['an ES module without default', { ...exports }, { ...exports }],
  ])('takes the exports %s', (_name, loaded, expected) => {
    expect(packageExports(loaded as object)).toEqual(expected);
  });

  it("leaves an ES module's lone default function alone", () => {
    const only = { default: () => 1 };
    expect(packageExports(only)).toBe(only);
  });
});
