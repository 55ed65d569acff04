import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-body.ts';

describe('nestsDeeperThan', () => {
  it.each([
    ['{}', 1, false],
    ['{}', 0, true],
    ['[[[]]]', 3, false],
    ['[[[]]]', 2, true],
    ['{"a":[{"b":[1]}]}', 4, false],
    ['{"a":[{"b":[1]}]}', 3, true],
    ['[1],[2],[3]', 1, false],
    ['"[[[[[[["', 1, false],
    ['{"a":"\\"[[[[","b":[]}', 2, false],
    ['{"a":"\\\\","b":[[]]}', 2, true],
  ])('%s deeper than %i: %s', (text, limit, expected) => {
    expect(nestsDeeperThan(text, limit)).toBe(expected);
  });
});
