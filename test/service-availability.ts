// Tests that need an outside server (Redis, PostgreSQL) run when it answers. Outside CI a
// missing server skips them with a one-line reason; in CI a missing server is a failure.
import net from 'node:net';

// A refused connection answers at once; the timeout only covers a server that is slow to accept,
// as a loaded machine can be (1 s once made the whole Redis block skip during a full run).
export function canConnect(url: string, timeoutMs = 5000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export const IN_CI = process.env.CI === 'true';

/** Whether to run tests needing `url`; logs the reason when skipping. */
export async function shouldRunWith(name: string, url: string): Promise<boolean> {
  if (await canConnect(url)) return true;
  if (IN_CI) throw new Error(`${name} at ${url} is not reachable, and CI must run its tests`);
  console.warn(`skipping ${name} tests: nothing answers at ${url}`);
  return false;
}
