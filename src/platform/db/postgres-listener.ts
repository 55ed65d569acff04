// LISTEN on one PostgreSQL channel through a dedicated client (a pooled connection cannot hold a
// LISTEN). A lost connection is re-opened after a pause; notifications sent while it was down
// are lost, so callers keep a slower safety net (a poll) and are told when listening resumes.
import type pg from 'pg';
import { loadPg } from './pg-module.ts';

export interface PostgresListenerOptions {
  url: string;
  channel: string;
  onNotification(payload: string): void;
  /** Listening (again) after a connection was opened: anything sent meanwhile was missed. */
  onListening?(): void;
  onError(error: Error): void;
  /** Pause before re-opening a lost connection, in ms. */
  reconnectDelayMs?: number;
}

export interface PostgresListener {
  close(): Promise<void>;
}

const DEFAULT_RECONNECT_DELAY_MS = 1_000;

export function listenToPostgresChannel(options: PostgresListenerOptions): PostgresListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const scheduleReconnect = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS);
    retry.unref();
  };

  const connect = async () => {
    const { Client } = await loadPg();
    // Closed while pg was loading: nothing to open.
    if (closed) return;
    const current = new Client({ connectionString: options.url });
    client = current;
    current.on('notification', (message) => {
      if (message.channel === options.channel) options.onNotification(message.payload ?? '');
    });
    current.on('error', (error) => {
      options.onError(error);
      void current.end().catch(() => {});
      scheduleReconnect();
    });
    current.on('end', () => {
      if (client === current) scheduleReconnect();
    });
    try {
      await current.connect();
      await current.query(`listen "${options.channel.replace(/"/g, '""')}"`);
      if (closed) await current.end();
      else options.onListening?.();
    } catch (error) {
      options.onError(error as Error);
      void current.end().catch(() => {});
      scheduleReconnect();
    }
  };

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
