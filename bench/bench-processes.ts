// Child processes of the bench: the servers under test and one-shot CLI commands. Servers
// are stopped with SIGTERM (SIGKILL if they linger), and killed outright if the bench exits.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deferCleanup } from './bench-cleanup.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Migrations run first; a healthy server is up in about a second (an older commit's, via tsx, in a few). */
const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;
/** Grace for a clean shutdown (in-flight requests, database close) before SIGKILL. */
const STOP_GRACE_MS = 5_000;
/** How much of a child's output is kept to explain its failure. */
const OUTPUT_TAIL_CHARS = 4_000;

const liveChildren = new Set<ChildProcess>();

const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * User and system CPU seconds the process (all its threads) has used, from /proc: on a machine
 * shared with other work wall time waits for the cores, CPU time is what the work cost.
 */
export function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After "pid (comm) ": field 3 (state) first; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Synchronous last resort for process 'exit': nothing async runs there. */
export function killLiveChildrenNow(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
}

/** A free TCP port on 127.0.0.1: listen on port 0, read the port, close. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('could not read a free port'))));
    });
  });
}

export interface ChildServer {
  name: string;
  baseUrl: string;
  /** The server process's id (its memory is read from /proc). */
  pid: number;
  stop(): Promise<void>;
}

export interface ChildServerSpec {
  name: string;
  /** Arguments after `node`, relative to the repository root. */
  args: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  /** A GET path that answers 200 once the server is ready. */
  readyPath: string;
  /** The checkout whose `bin/erx.js` runs (default: this one); compare mode runs an older commit's. */
  cwd?: string;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_GRACE_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, STOP_GRACE_MS);
    }
  }
  liveChildren.delete(child);
}

function describeExit(child: ChildProcess): string {
  return child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;
}

async function waitUntilReady(spec: ChildServerSpec, child: ChildProcess, baseUrl: string, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${spec.name} ${describeExit(child)} before it was ready:\n${output()}`);
    }
    try {
      const response = await fetch(`${baseUrl}${spec.readyPath}`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) return;
      lastProblem = `GET ${spec.readyPath} answered ${response.status}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  throw new Error(`${spec.name} not ready after ${READY_TIMEOUT_MS / 1000} s (${lastProblem}):\n${output()}`);
}

/** Starts a server as `node <args>` and resolves once its ready path answers 200. */
export async function startChildServer(spec: ChildServerSpec): Promise<ChildServer> {
  const child = spawn(process.execPath, spec.args, { cwd: spec.cwd ?? REPO_ROOT, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
  liveChildren.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const baseUrl = `http://127.0.0.1:${spec.port}`;
  try {
    await spawned;
    await waitUntilReady(spec, child, baseUrl, () => tail.trim() || '(no output)');
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  const forget = deferCleanup(spec.name, () => stopChild(child));
  return {
    name: spec.name,
    baseUrl,
    pid: child.pid!,
    stop: async () => {
      forget();
      await stopChild(child);
    },
  };
}

/** Runs `node <args>` to completion and returns its stdout; a non-zero exit throws with its stderr. */
export function runNodeCommand(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000, cwd = REPO_ROOT): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, args, { cwd, env, timeout: timeoutMs }, (error, stdout, stderr) => {
      liveChildren.delete(child);
      if (error) reject(new Error(`node ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
    liveChildren.add(child);
  });
}
