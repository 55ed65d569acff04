import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { createLazyChildLogger } from './lazy-request-logger.ts';

function capture(level: string) {
  const lines: string[] = [];
  const root = pino({ level }, new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }));
  let children = 0;
  const child = root.child.bind(root);
  root.child = ((...args: Parameters<typeof child>) => (children += 1, child(...args))) as typeof root.child;
  return { root: root as unknown as FastifyBaseLogger, lines, children: () => children };
}

describe('lazy request logger', () => {
  it('builds the child only when a record is written, with the request bindings', () => {
    const { root, lines, children } = capture('info');
    const log = createLazyChildLogger(root, { requestId: 'req_1' }, {});
    log.debug('below the level');
    expect(children()).toBe(0);
    log.error({ detail: 1 }, 'boom');
    log.warn('again');
    expect(children()).toBe(1);
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([{ requestId: 'req_1', msg: 'boom', detail: 1 }, { requestId: 'req_1', msg: 'again' }]);
  });

  it('reports the parent level until it has a child of its own', () => {
    const { root } = capture('warn');
    const log = createLazyChildLogger(root, {}, {});
    expect(log.level).toBe('warn');
    log.level = 'debug';
    expect(log.level).toBe('debug');
  });
});
