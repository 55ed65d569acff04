// Fastify gives every request a child logger. Building a pino child (bindings serialised,
// redaction applied) costs more than many of our routes; most requests never log through
// theirs (the per-request line goes through the root logger), so build it on first use.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

const LEVELS: Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

class LazyRequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    readonly parent: Logger,
    readonly bindings: Bindings,
    readonly options: ChildLoggerOptions,
  ) {}

  get real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options) as FastifyBaseLogger);
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  silent(): void {}
}

for (const level of LEVELS) {
  Object.defineProperty(LazyRequestLogger.prototype, level, {
    value(this: LazyRequestLogger, ...args: unknown[]) {
      if (!this.parent.isLevelEnabled(level)) return;
      (this.real[level] as (...a: unknown[]) => void)(...args);
    },
  });
}

export function createLazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyRequestLogger(parent as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
