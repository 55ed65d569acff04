// The flags of `npm run bench`: how long and how hard each endpoint is driven.
import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Seconds each endpoint is measured, after the warm-up (as many again for its baseline, in alternating slices). */
  durationSeconds: number;
  /** Seconds each endpoint is driven, unrecorded, before it is measured (JIT, caches, pools). */
  warmupSeconds: number;
  /** Concurrent keep-alive connections autocannon holds open. */
  connections: number;
}

const DEFAULT_DURATION_SECONDS = 10;
const QUICK_DURATION_SECONDS = 3;
const WARMUP_SECONDS = 2;
const DEFAULT_CONNECTIONS = 10;
/** Measured seconds come in slices about this long, each beside as long a slice of the baseline. */
export const SLICE_SECONDS = 2;

export const BENCH_USAGE = [
  'usage: npm run bench -- [--duration SECONDS | --quick] [--connections N]',
  `  --duration SECONDS  measured seconds per endpoint (default ${DEFAULT_DURATION_SECONDS}, after a ${WARMUP_SECONDS} s warm-up), in ${SLICE_SECONDS} s slices`,
  '                      that alternate with as many seconds of its baseline',
  `  --quick             smoke run: ${QUICK_DURATION_SECONDS} s per endpoint`,
  `  --connections N     concurrent connections (default ${DEFAULT_CONNECTIONS})`,
].join('\n');

export class BenchUsageError extends Error {
  override name = 'BenchUsageError';
}

function readWholeNumber(flag: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    throw new BenchUsageError(`--${flag} must be a whole number from 1 to ${max}, got "${text}"`);
  }
  return value;
}

/** Returns undefined when --help was asked for. */
export function parseBenchOptions(argv: string[]): BenchOptions | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        duration: { type: 'string' },
        connections: { type: 'string' },
        quick: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help) return undefined;
  if (values.quick && values.duration !== undefined) {
    throw new BenchUsageError('--quick and --duration cannot be combined');
  }
  const fallbackDuration = values.quick ? QUICK_DURATION_SECONDS : DEFAULT_DURATION_SECONDS;
  return {
    durationSeconds: readWholeNumber('duration', values.duration, fallbackDuration, 600),
    warmupSeconds: WARMUP_SECONDS,
    connections: readWholeNumber('connections', values.connections, DEFAULT_CONNECTIONS, 1000),
  };
}
