// Cold start, the first rows of `npm run bench` and alone as `npm run bench -- cold-start`: how
// long `erx serve` takes from spawn to its first 200 on GET /livez, each start on a fresh data
// directory (keys generated, every migration run, as an install's first start), and how long
// `erx --version` takes to return. Medians of several runs, wall and CPU time: on a machine
// shared with other work wall time waits for the cores, CPU time is what the start costs.
import { execFile, spawn } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { prepareApiEnvironment } from './bench-environment.ts';
import { cpuSecondsOf, findFreePort, REPO_ROOT } from './bench-processes.ts';

const SERVE_STARTS = 7;
const VERSION_RUNS = 15;
/** Issue 42: `erx serve` answers /livez within 1 s of starting, `erx --version` returns in 0.3 s. */
export const COLD_START_TARGETS_MS = { serve: 1_000, version: 300 };
/** A start that has not answered by then is a failure. */
const START_TIMEOUT_MS = 30_000;
const POLL_MS = 5;

export interface ColdStartRow {
  name: string;
  runs: number;
  wallMedianMs: number;
  wallMaxMs: number;
  cpuMedianMs: number;
  targetMs: number;
  /** The wall median under the target. */
  pass: boolean;
}

export interface ColdStart {
  serve: ColdStartRow;
  version: ColdStartRow;
  /** One-minute load average when the cold start was measured. */
  loadAverage: number;
}

interface Run {
  wallMs: number;
  cpuMs: number;
}

async function firstLiveAnswer(baseUrl: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const response = await fetch(`${baseUrl}/livez`);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`erx serve did not answer 200 on /livez within ${START_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** One start on a fresh data directory (or PostgreSQL schema), from spawn to the first 200 on /livez; stopped before returning. */
async function timeOneServe(): Promise<Run> {
  const port = await findFreePort();
  const environment = await prepareApiEnvironment(port);
  try {
    const started = performance.now();
    const child = spawn(process.execPath, ['bin/erx.js', 'serve'], { cwd: REPO_ROOT, env: environment.env, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await firstLiveAnswer(`http://127.0.0.1:${port}`, started + START_TIMEOUT_MS);
      const wallMs = performance.now() - started;
      return { wallMs, cpuMs: cpuSecondsOf(child.pid!) * 1000 };
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  } finally {
    await environment.remove();
  }
}

/**
 * `erx --version` to its exit: wall time, and its CPU time as the shell that waited for it
 * reports it (`times`: the shell's own user and system time, then its children's).
 */
function timeOneVersion(): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const script = `"${process.execPath}" bin/erx.js --version >/dev/null && times`;
    execFile('/bin/sh', ['-c', script], { cwd: REPO_ROOT }, (error, stdout) => {
      if (error) return reject(new Error(`erx --version failed: ${error.message}`));
      const wallMs = performance.now() - started;
      const children = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s\s*$/.exec(stdout.trim());
      if (!children) return reject(new Error(`unexpected output of times: ${stdout}`));
      const seconds = Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4]);
      resolve({ wallMs, cpuMs: seconds * 1000 });
    });
  });
}

function summarize(name: string, runs: Run[], targetMs: number): ColdStartRow {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const wallMedianMs = Math.round(median(runs.map((r) => r.wallMs)));
  return {
    name,
    runs: runs.length,
    wallMedianMs,
    wallMaxMs: Math.round(Math.max(...runs.map((r) => r.wallMs))),
    cpuMedianMs: Math.round(median(runs.map((r) => r.cpuMs))),
    targetMs,
    pass: wallMedianMs < targetMs,
  };
}

/** Both rows, one start or run after another (never two at once: the machine has 2 cores). */
export async function measureColdStart(): Promise<ColdStart> {
  const serves: Run[] = [];
  for (let i = 0; i < SERVE_STARTS; i += 1) serves.push(await timeOneServe());
  // One unrecorded run first: the OS's file cache, as for every later command.
  await timeOneVersion();
  const versions: Run[] = [];
  for (let i = 0; i < VERSION_RUNS; i += 1) versions.push(await timeOneVersion());
  return {
    serve: summarize('erx serve, fresh data directory -> /livez 200', serves, COLD_START_TARGETS_MS.serve),
    version: summarize('erx --version', versions, COLD_START_TARGETS_MS.version),
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

export function formatColdStart(cold: ColdStart): string {
  const line = (row: ColdStartRow) =>
    `  ${row.name}: wall median ${row.wallMedianMs} ms (max ${row.wallMaxMs}), CPU median ${row.cpuMedianMs} ms, ${row.runs} runs; target < ${row.targetMs} ms ${row.pass ? 'PASS' : 'FAIL'}`;
  return [`cold start (load average ${cold.loadAverage} on ${os.cpus().length} cores):`, line(cold.serve), line(cold.version)].join('\n');
}

/** `npm run bench -- cold-start`: the two rows alone. */
export async function runColdStartBench(): Promise<{ line: string; passed: boolean }> {
  const cold = await measureColdStart();
  process.stdout.write(`${formatColdStart(cold)}\n`);
  const passed = cold.serve.pass && cold.version.pass;
  return { line: `bench cold-start: ${passed ? 'PASS' : 'FAIL'}, serve ${cold.serve.wallMedianMs} ms, --version ${cold.version.wallMedianMs} ms (wall medians)`, passed };
}
