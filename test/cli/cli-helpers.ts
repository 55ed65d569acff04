// Runs the real `erx` CLI in a child process against a private data directory (and, when the
// suite runs on PostgreSQL, a private schema, dropped after the run).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { newTestSchemaName, TEST_DATABASE_URL } from '../test-app.ts';

export const ERX_BIN = path.resolve('bin/erx.js');

export interface CliEnvironment {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export function createCliEnvironment(extra: Record<string, string> = {}): CliEnvironment {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-cli-'));
  const schema = TEST_DATABASE_URL ? newTestSchemaName('cli') : undefined;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ERX_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...(TEST_DATABASE_URL && schema ? { DATABASE_URL: TEST_DATABASE_URL, ERX_DATABASE_SCHEMA: schema } : {}),
    ...extra,
  };
  return {
    env,
    async cleanup() {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runErx(env: Record<string, string>, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ERX_BIN, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function runErxJson<T = any>(env: Record<string, string>, args: string[]): Promise<T> {
  const result = await runErx(env, [...args, '--json']);
  if (result.code !== 0) throw new Error(`erx ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Starts `erx serve` on a free port and resolves with its base URL once it listens. */
export function spawnServer(env: Record<string, string>, args: string[] = []): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [ERX_BIN, 'serve', ...args], { env: { PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`erx serve did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /erx listening on (http:\/\/\S+?)(?:\s|$)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`erx serve exited with ${code}:\n${output}`));
    });
  });
}

/** A refused command: a non-zero exit, nothing on stdout, and one `erx: ...` line on stderr that matches `message` (commander's `error: ` prefix aside). */
export function expectOneLineRefusal(result: CliResult, message: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(/^erx: /);
  expect(result.stderr.trim().replace(/^erx: (error: )?/, 'erx: ')).toMatch(message);
  expect(result.stdout).toBe('');
}
