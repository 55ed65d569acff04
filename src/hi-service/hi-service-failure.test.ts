import { describe, expect, it } from 'vitest';
import { classifyHiFailure } from './hi-service-failure.ts';
import { HiServiceRejectedError, HiServiceUnreachableError } from './hi-service-port.ts';

describe('classifyHiFailure', () => {
  it.each([
    ['a rejection (a subclass of unreachable)', new HiServiceRejectedError('Fatal', 'WSE0035'), { outcome: 'rejected', severity: 'Fatal', code: 'WSE0035', reason: 'Fatal WSE0035' }],
    ['an Error-severity rejection', new HiServiceRejectedError('Error', '01439'), { outcome: 'rejected', severity: 'Error', code: '01439', reason: 'Error 01439' }],
    ['no answer', new HiServiceUnreachableError('HI Service timed out'), { outcome: 'unreachable', reason: 'HI Service timed out' }],
    ['any other error', new TypeError('x is undefined'), { outcome: 'error' }],
    ['a thrown non-error', 'boom', { outcome: 'error' }],
  ])('%s', (_name, error, expected) => {
    expect(classifyHiFailure(error)).toEqual(expected);
  });
});
