// A Redis or a PostgreSQL of a test's own: started as a child process on a free port bound to
// 127.0.0.1, stopped and started again on the same port (and data directory) to show what the
// service does while it is gone, and removed afterwards. Never the shared servers on 5432/6379.
// Outside CI, missing binaries skip the tests with a one-line reason; in CI they fail them.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { canConnect, IN_CI } from './service-availability.ts';

export interface OwnServer {
  readonly url: string;
  readonly port: number;
  /** Ends the process (SIGKILL for Redis, an immediate shutdown for PostgreSQL) and waits until it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port (and, for PostgreSQL, data directory) and waits until it answers. */
  start(): Promise<void>;
  /** Freezes every process of it (SIGSTOP): connections stay open and nothing answers, as with a hung server. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
  /** Stops it if running and deletes what it kept on disk. */
  remove(): Promise<void>;
}

const STARTUP_DEADLINE_MS = 30_000;
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) signalGroup(child, 'SIGKILL');
});

/** Signals the server and every process it started (PostgreSQL's backends each run in a process group of their own). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  for (const pid of [child.pid, ...descendantsOf(child.pid)]) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** The processes below `root`, from /proc (Linux). */
function descendantsOf(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command name, which is in parentheses and may hold spaces.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Ended while listing.
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) if (parent === pid) found.push(child), walk(child);
  };
  walk(root);
  return found;
}

/** A TCP port nothing listens on now (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function findOnPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, binary);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The newest PostgreSQL installed under /usr/lib/postgresql, or the one on PATH. */
function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const dir = path.join(root, version, 'bin');
    if (fs.existsSync(path.join(dir, 'initdb'))) return dir;
  }
  const initdb = findOnPath('initdb');
  return initdb ? path.dirname(initdb) : undefined;
}

/** Why a server of this kind cannot be started here, or undefined when it can. */
export function whyOwnServerMissing(kind: 'redis' | 'postgres'): string | undefined {
  if (kind === 'redis') return findOnPath('redis-server') ? undefined : 'redis-server is not on PATH';
  if (!postgresBinDir()) return 'no PostgreSQL binaries (initdb) under /usr/lib/postgresql/*/bin or on PATH';
  if (process.getuid?.() === 0 && userIds('postgres') === undefined) return 'running as root and there is no postgres user to run PostgreSQL as';
  return undefined;
}

/** Whether to run tests needing an own server of `kind`; outside CI logs the reason when skipping, in CI throws. */
export function shouldRunOwnServer(kind: 'redis' | 'postgres'): boolean {
  const missing = whyOwnServerMissing(kind);
  if (!missing) return true;
  if (IN_CI) throw new Error(`cannot start a ${kind} of the test's own (${missing}), and CI must run its tests`);
  console.warn(`skipping tests with an own ${kind}: ${missing}`);
  return false;
}

function userIds(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

async function waitUntil(what: string, ready: () => Promise<boolean>, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited while starting:\n${output()}`);
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not answer within ${STARTUP_DEADLINE_MS} ms:\n${output()}`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

interface Launch {
  what: string;
  spawnIt(): ChildProcess;
  answers(): Promise<boolean>;
  stopSignal: NodeJS.Signals;
  cleanup(): void;
}

async function ownServer(url: string, port: number, launch: Launch): Promise<OwnServer> {
  let child: ChildProcess | undefined;
  let paused = false;
  const start = async () => {
    let output = '';
    const started = launch.spawnIt();
    child = started;
    running.add(started);
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.once('exit', () => running.delete(started));
    await waitUntil(launch.what, launch.answers, started, () => output);
  };
  const stop = async () => {
    if (!child) return;
    const stopping = child;
    child = undefined;
    if (paused) signalGroup(stopping, 'SIGCONT');
    paused = false;
    stopping.kill(launch.stopSignal);
    await exited(stopping);
  };
  await start();
  return {
    url,
    port,
    start,
    stop,
    pause() {
      if (!child) throw new Error(`${launch.what} is not running`);
      signalGroup(child, 'SIGSTOP');
      paused = true;
    },
    resume() {
      if (child && paused) signalGroup(child, 'SIGCONT');
      paused = false;
    },
    async remove() {
      await stop();
      launch.cleanup();
    },
  };
}

/** A Redis with nothing on disk, on a free port of 127.0.0.1. */
export async function startOwnRedis(): Promise<OwnServer> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  return ownServer(url, port, {
    what: `redis-server on port ${port}`,
    spawnIt: () =>
      spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] }),
    answers: () => canConnect(url, 1000),
    stopSignal: 'SIGKILL',
    cleanup: () => {},
  });
}

/**
 * A PostgreSQL cluster in a temporary directory (trust authentication for `postgres`, no fsync:
 * it holds test data only), on a free port of 127.0.0.1. PostgreSQL refuses to run as root,
 * so as root it runs as the `postgres` user, in a directory that user owns.
 */
export async function startOwnPostgres(): Promise<OwnServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(whyOwnServerMissing('postgres'));
  const ids = process.getuid?.() === 0 ? userIds('postgres') : undefined;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-own-pg-'));
  if (ids) fs.chownSync(root, ids.uid, ids.gid);
  const dataDir = path.join(root, 'data');
  const asOwner = ids ? { uid: ids.uid, gid: ids.gid } : {};
  execFileSync(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'], { ...asOwner, stdio: 'pipe', cwd: root });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${root}`, '-c', 'fsync=off', '-c', 'max_connections=40'];
  return ownServer(url, port, {
    what: `PostgreSQL on port ${port}`,
    spawnIt: () => spawn(path.join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), ...settings], { ...asOwner, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }),
    answers: () => postgresAnswers(url),
    // Immediate shutdown: connections end at once, as when the server is lost.
    stopSignal: 'SIGQUIT',
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  });
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
