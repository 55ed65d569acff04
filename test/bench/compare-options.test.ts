// `npm run bench -- compare <ref>`: its flags (bench/bench-options.ts), the rows --rows picks
// (bench/compare-phases.ts), and the dependency check that refuses a ref it cannot run
// faithfully on this checkout's node_modules (bench/compare-worktree.ts).
import { describe, expect, it } from 'vitest';
import type { BenchEndpoint } from '../../bench/bench-endpoints.ts';
import { BenchUsageError, parseBenchCommand } from '../../bench/bench-options.ts';
import { selectRows } from '../../bench/compare-phases.ts';
import { unmetDependencies } from '../../bench/compare-worktree.ts';

describe('parseBenchCommand compare', () => {
  it('takes the ref first and the endpoint defaults: 10 s, 2 s warm-up, 10 connections, every row', () => {
    expect(parseBenchCommand(['compare', '6ff4872'])).toEqual({
      mode: 'compare',
      options: { ref: '6ff4872', durationSeconds: 10, warmupSeconds: 2, connections: 10 },
    });
  });

  it('reads --quick, --duration and --connections as the endpoint bench does', () => {
    expect(parseBenchCommand(['compare', 'main~3', '--quick'])?.options).toMatchObject({ ref: 'main~3', durationSeconds: 3 });
    expect(parseBenchCommand(['compare', 'HEAD^', '--duration', '20', '--connections', '4'])?.options).toMatchObject({ durationSeconds: 20, connections: 4 });
  });

  it('splits --rows on commas, except those inside a parenthesis of a name', () => {
    const command = parseBenchCommand(['compare', '6ff4872', '--rows', 'token, list users (10,000),validate', '--quick']);
    expect(command?.options).toMatchObject({ rows: ['token', 'list users (10,000)', 'validate'], durationSeconds: 3 });
  });

  it.each([
    [['compare'], /needs a git ref/],
    [['compare', '--quick'], /needs a git ref/],
    [['compare', 'abc', '--rows'], /--rows needs/],
    [['compare', 'abc', '--rows', '--quick'], /--rows needs/],
    [['compare', 'abc', '--rows', ' , '], /at least one row/],
    [['compare', 'abc', '--quick', '--duration', '5'], /cannot be combined/],
    [['compare', 'abc', '--duration', '0'], /whole number/],
    [['compare', 'abc', 'def'], /positional/i],
    [['compare', 'abc', '--bogus'], /bogus/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseBenchCommand(argv)).toThrow(BenchUsageError);
    expect(() => parseBenchCommand(argv)).toThrow(message);
  });

  it('answers --help with no command', () => {
    expect(parseBenchCommand(['compare', '--help'])).toBeUndefined();
    expect(parseBenchCommand(['compare', 'abc', '--help'])).toBeUndefined();
  });
});

describe('selectRows', () => {
  const row = (name: string): BenchEndpoint => ({ name, method: 'GET', path: '/', headers: {}, baseline: 'GET' });
  const rows = [row('token'), row('validate'), row('list users (10,000)'), row('update user (no HI lookup)')];

  it('keeps every row when none is named', () => {
    expect(selectRows(rows, undefined)).toBe(rows);
  });

  it('matches a whole name or the name before its parenthesis, in the table order', () => {
    expect(selectRows(rows, ['list users', 'Token', 'update user (no HI lookup)']).map((r) => r.name)).toEqual([
      'token',
      'list users (10,000)',
      'update user (no HI lookup)',
    ]);
  });

  it('refuses an unknown name and lists the rows', () => {
    expect(() => selectRows(rows, ['token', 'tokens'])).toThrow(/no row named "tokens"; the rows are "token", "validate"/);
  });
});

describe('unmetDependencies', () => {
  const manifest = (fields: Record<string, unknown>) => JSON.stringify({ name: 'erx', scripts: { test: 'vitest' }, ...fields });

  it('accepts an older commit whose packages this checkout declares at the same ranges, in any field', () => {
    const current = manifest({ dependencies: { fastify: '^5.0.0', 'prom-client': '^15' }, devDependencies: { tsx: '^4' } });
    const other = JSON.stringify({ name: 'erx', version: '0.0.9', dependencies: { fastify: '^5.0.0', tsx: '^4' } });
    expect(unmetDependencies(current, other)).toEqual([]);
  });

  it('names each package the other commit declares at another range or this checkout lacks', () => {
    const current = manifest({ dependencies: { fastify: '^5.1.0' }, devDependencies: { vitest: '^3.0.0' } });
    const other = manifest({ dependencies: { fastify: '^5.0.0' }, devDependencies: { vitest: '^3.0.0' }, optionalDependencies: { pg: '^8' } });
    expect(unmetDependencies(current, other)).toEqual(['fastify@^5.0.0', 'pg@^8']);
  });
});
