// `npm run bench -- cold-start`: how long `erx serve` (the compiled service) takes from spawn to
// its first 200 on GET /health, over several starts on one prepared database (the first start,
// unrecorded, migrates it and generates its keys, as an install does once). Each start is
// stopped (SIGTERM) before the next. Target: a median under one second.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { prepareApiEnvironment } from './bench-environment.ts';
import { findFreePort, REPO_ROOT } from './bench-processes.ts';

const STARTS = 7;
const TARGET_MEDIAN_MS = 1_000;
/** A start that has not answered by then is a failure. */
const START_TIMEOUT_MS = 30_000;
const POLL_MS = 5;

async function firstHealthyAnswer(baseUrl: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const response = await fetch(`${baseUrl}/health`);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`erx serve did not answer 200 on /health within ${START_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * CPU milliseconds (user + system) the process has used, from /proc (clock ticks of 10 ms): on
 * a machine shared with other work, wall time waits for the cores; this is what the start costs.
 */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Start {
  wallMs: number;
  cpuMs: number;
}

/** From spawn to the first 200 on /health: wall and CPU time; the server is stopped before returning. */
async function timeOneStart(env: NodeJS.ProcessEnv, port: number): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/erx.js', 'serve'], { cwd: REPO_ROOT, env, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await firstHealthyAnswer(`http://127.0.0.1:${port}`, started + START_TIMEOUT_MS);
    const wallMs = performance.now() - started;
    return { wallMs, cpuMs: await cpuMs(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export async function runColdStartBench(): Promise<{ line: string; passed: boolean }> {
  const port = await findFreePort();
  const environment = await prepareApiEnvironment(port);
  try {
    await timeOneStart(environment.env, port);
    const starts: Start[] = [];
    for (let i = 0; i < STARTS; i += 1) starts.push(await timeOneStart(environment.env, port));
    const medianAndMax = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { median: Math.round(sorted[Math.floor(sorted.length / 2)]!), max: Math.round(sorted.at(-1)!) };
    };
    const wall = medianAndMax(starts.map((s) => s.wallMs));
    const cpu = medianAndMax(starts.map((s) => s.cpuMs));
    const load = os.loadavg()[0]!.toFixed(2);
    process.stdout.write(`bench cold-start: ${environment.database.dialect}, ${STARTS} starts of erx serve, spawn to first 200 on /health (load average ${load} on ${os.cpus().length} cores)\n`);
    process.stdout.write(`  wall ms: ${starts.map((s) => Math.round(s.wallMs)).join(', ')}\n  CPU ms:  ${starts.map((s) => s.cpuMs).join(', ')}\n`);
    const passed = wall.median < TARGET_MEDIAN_MS;
    return {
      line: `bench cold-start: ${passed ? 'PASS' : 'FAIL'}, wall median ${wall.median} ms, max ${wall.max} ms; CPU median ${cpu.median} ms, max ${cpu.max} ms (target: wall median under ${TARGET_MEDIAN_MS} ms)`,
      passed,
    };
  } finally {
    await environment.remove();
  }
}
