// The flags of `npm run bench`: how long and how hard each endpoint is driven; and of its
// separate webhooks mode (`npm run bench -- webhooks`), which measures webhook delivery.
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

/** What `npm run bench -- webhooks` measures (see bench/webhooks-bench.ts). */
export interface WebhooksBenchOptions {
  /** Events per second recorded for the latency measurement (the 500). */
  ratePerSecond: number;
  /** Seconds the latency is measured at that rate, after WARMUP_SECONDS. */
  latencySeconds: number;
  /** Events waiting in the outbox when the dispatcher starts, for the sustained rate. */
  backlogEvents: number;
  /** Seconds of the bare undici loop, before and again after the dispatcher drains the backlog. */
  bareLoopSeconds: number;
  warmupSeconds: number;
  /** CPU-profile the process while it drains the backlog (the rate is then the profiler's, not a figure). */
  profile: boolean;
}

/** `npm run bench -- compare <ref>`: this checkout's server beside the ref's, row by row. */
export interface CompareBenchOptions extends BenchOptions {
  /** The git ref of the other commit, as given. */
  ref: string;
  /** Names of the API rows to measure; undefined: all of them. */
  rows?: string[];
}

export type BenchCommand =
  | { mode: 'endpoints'; options: BenchOptions }
  | { mode: 'compare'; options: CompareBenchOptions }
  | { mode: 'webhooks'; options: WebhooksBenchOptions }
  | { mode: 'metrics'; options: BenchOptions }
  | { mode: 'credential-flood'; options: Record<string, never> }
  | { mode: 'cold-start'; options: Record<string, never> }
  | { mode: 'prune'; options: { quick: boolean } }
  | { mode: 'audit-list'; options: { entries: number } }
  | { mode: 'medicines'; options: { codes: number } };

const WEBHOOK_RATE_PER_SECOND = 500;
const WEBHOOK_LATENCY_SECONDS = 20;
const WEBHOOK_BACKLOG_EVENTS = 40_000;
const WEBHOOK_BARE_LOOP_SECONDS = 5;

export const BENCH_USAGE = [
  'usage: npm run bench -- [--duration SECONDS | --quick] [--connections N]',
  `  --duration SECONDS  measured seconds per endpoint (default ${DEFAULT_DURATION_SECONDS}, after a ${WARMUP_SECONDS} s warm-up), in ${SLICE_SECONDS} s slices`,
  '                      that alternate with as many seconds of its baseline',
  `  --quick             smoke run: ${QUICK_DURATION_SECONDS} s per endpoint`,
  `  --connections N     concurrent connections (default ${DEFAULT_CONNECTIONS})`,
  '',
  '       npm run bench -- metrics [--duration SECONDS | --quick] [--connections N]',
  '  only the last phase of a run: validate on a server with ERX_METRICS_PORT beside one without, in alternating slices',
  '',
  '       npm run bench -- webhooks [--duration SECONDS | --quick] [--profile]',
  `  webhook delivery on SQLite, or PostgreSQL when DATABASE_URL is set: commit-to-first-delivery latency at`,
  `  ${WEBHOOK_RATE_PER_SECOND} events/s, then the sustained rate draining ${WEBHOOK_BACKLOG_EVENTS} events beside a bare undici loop`,
  `  --duration SECONDS  seconds the latency is measured (default ${WEBHOOK_LATENCY_SECONDS})`,
  `  --quick             smoke run: ${QUICK_DURATION_SECONDS} s of latency, a backlog of ${WEBHOOK_BACKLOG_EVENTS / 10} events`,
  '  --profile           CPU profile of the drain, summarized, in .bench/webhooks-<database>.cpuprofile (its rate is not a figure)',
  '',
  '       npm run bench -- compare GIT-REF [--duration SECONDS | --quick] [--connections N] [--rows NAME,NAME]',
  "  this checkout's server beside GIT-REF's (a temporary git worktree), each API row in slices alternating",
  '  between the two; --rows picks rows by name (as in the table, e.g. "token,validate")',
  '',
  '       npm run bench -- credential-flood',
  '  20,000 failed token calls with random 7 KB ids, then 20,000 with random well-formed ids from as many addresses:',
  "  the server's RSS and a valid endpoint's latency before and after each",
  '',
  '       npm run bench -- cold-start',
  '  the first rows of every run, alone: erx serve on a fresh data directory from spawn to its first 200 on /livez',
  '  (7 starts), and erx --version (15 runs); wall and CPU medians (targets: under 1 s and 0.3 s)',
  '',
  '       npm run bench -- prune [--quick]',
  '  p50/p99 of validate and create patient alone, then beside `erx prune` deleting 200,000 old webhook events',
  '  (600,000 rows) written straight into the tables; --quick: 20,000 events',
  '',
  '       npm run bench -- audit-list [--entries N]',
  '  `erx audit list --patient X` on an audit trail of N chained entries (default 1,000,000), SQLite or DATABASE_URL',
  '',
  '       npm run bench -- medicines [--codes N]',
  '  `erx medicines import` of a synthetic full-size PBS schedule (N codes, default 6,000) and the medicine search over it',
  '  (target: p95 under 100 ms), SQLite or DATABASE_URL',
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

/** The mode and its options, or undefined when --help was asked for. */
export function parseBenchCommand(argv: string[]): BenchCommand | undefined {
  if (argv[0] === 'credential-flood') {
    if (argv.length > 1) throw new BenchUsageError('credential-flood takes no options');
    return { mode: 'credential-flood', options: {} };
  }
  if (argv[0] === 'cold-start') {
    if (argv.length > 1) throw new BenchUsageError('cold-start takes no options');
    return { mode: 'cold-start', options: {} };
  }
  if (argv[0] === 'prune') {
    const extra = argv.slice(1).filter((arg) => arg !== '--quick');
    if (extra.length > 0) throw new BenchUsageError(`prune takes only --quick, got ${extra.join(' ')}`);
    return { mode: 'prune', options: { quick: argv.includes('--quick') } };
  }
  if (argv[0] === 'compare') return parseCompareOptions(argv.slice(1));
  if (argv[0] === 'audit-list') {
    if (argv.length !== 1 && (argv.length !== 3 || argv[1] !== '--entries')) throw new BenchUsageError('audit-list takes only --entries N');
    return { mode: 'audit-list', options: { entries: readWholeNumber('entries', argv[2], 1_000_000, 10_000_000) } };
  }
  if (argv[0] === 'medicines') {
    if (argv.length !== 1 && (argv.length !== 3 || argv[1] !== '--codes')) throw new BenchUsageError('medicines takes only --codes N');
    return { mode: 'medicines', options: { codes: readWholeNumber('codes', argv[2], 6_000, 100_000) } };
  }
  if (argv[0] === 'metrics') {
    const options = parseBenchOptions(argv.slice(1));
    return options && { mode: 'metrics', options };
  }
  if (argv[0] !== 'webhooks') {
    const options = parseBenchOptions(argv);
    return options && { mode: 'endpoints', options };
  }
  const options = parseWebhooksBenchOptions(argv.slice(1));
  return options && { mode: 'webhooks', options };
}

function parseWebhooksBenchOptions(argv: string[]): WebhooksBenchOptions | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        duration: { type: 'string' },
        quick: { type: 'boolean', default: false },
        profile: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return undefined;
  if (values.quick && values.duration !== undefined) throw new BenchUsageError('--quick and --duration cannot be combined');
  return {
    ratePerSecond: WEBHOOK_RATE_PER_SECOND,
    latencySeconds: readWholeNumber('duration', values.duration, values.quick ? QUICK_DURATION_SECONDS : WEBHOOK_LATENCY_SECONDS, 600),
    backlogEvents: values.quick ? WEBHOOK_BACKLOG_EVENTS / 10 : WEBHOOK_BACKLOG_EVENTS,
    bareLoopSeconds: values.quick ? 2 : WEBHOOK_BARE_LOOP_SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    profile: values.profile,
  };
}

/** The ref, then the endpoint flags and --rows; undefined when --help was asked for. */
function parseCompareOptions(argv: string[]): BenchCommand | undefined {
  const [ref, ...rest] = argv;
  if (ref === '--help' || ref === '-h') return undefined;
  if (ref === undefined || ref.startsWith('-')) throw new BenchUsageError('compare needs a git ref first, e.g. `compare 6ff4872`');
  const rowsAt = rest.indexOf('--rows');
  const rowsText = rowsAt >= 0 ? rest[rowsAt + 1] : undefined;
  if (rowsAt >= 0 && (rowsText === undefined || rowsText.startsWith('-'))) throw new BenchUsageError('--rows needs a comma-separated list of row names');
  const options = parseBenchOptions(rowsAt >= 0 ? [...rest.slice(0, rowsAt), ...rest.slice(rowsAt + 2)] : rest);
  if (!options) return undefined;
  // A comma inside parentheses belongs to a name: "list users (10,000)".
  const rows = rowsText?.split(/,(?![^(]*\))/).map((name) => name.trim()).filter((name) => name !== '');
  if (rows !== undefined && rows.length === 0) throw new BenchUsageError('--rows needs at least one row name');
  return { mode: 'compare', options: { ...options, ref, ...(rows ? { rows } : {}) } };
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
