import { describe, expect, it } from 'vitest';
import { spanContextOfTraceparent } from './trace-context.ts';

describe('spanContextOfTraceparent: the stored traceparent back as a remote span context', () => {
  it('reads a sampled and an unsampled traceparent', () => {
    expect(spanContextOfTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      isRemote: true,
    });
    expect(spanContextOfTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')?.traceFlags).toBe(0);
  });

  it.each([
    ['null (traces were off)', null],
    ['empty', ''],
    ['another version', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['too short', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
  ])('refuses %s', (_case, value) => {
    expect(spanContextOfTraceparent(value)).toBeUndefined();
  });
});
