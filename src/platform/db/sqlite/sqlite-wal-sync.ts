// What makes a committed group durable on a file database: an fsync of its write-ahead log.
//
// The writer runs in WAL mode with synchronous=NORMAL, so its COMMIT writes the group's frames
// to the -wal file without waiting for the disk (SQLite still syncs the log before each
// checkpoint and the database file after it, and never loses its integrity). This fsync, run on
// libuv's thread pool rather than the event loop, is what synchronous=FULL would have run inside
// COMMIT: once it returns, every frame committed before it started is on the disk. fsync is per
// file, not per descriptor, so a descriptor of our own serves; SQLite keeps the -wal file (it
// resets it in place) while any connection is open, and the driver's connections stay open until
// it closes this too.
import fs from 'node:fs';

export interface WalSync {
  /** Flushes the log to the disk off the event loop; resolves once everything committed before the call is durable. */
  sync(): Promise<void>;
  /** The same, blocking: for shutdown only. */
  syncNow(): void;
  close(): void;
}

/** The WAL sync of the database file `file` (its log is `<file>-wal`). */
export function walSyncOf(file: string): WalSync {
  const log = `${file}-wal`;
  let descriptor: number | undefined;
  // Opened at the first sync: the log exists once a COMMIT has written to it.
  const open = () => (descriptor ??= fs.openSync(log, 'r'));
  return {
    sync: () =>
      new Promise<void>((resolve, reject) => {
        let fd: number;
        try {
          fd = open();
        } catch (error) {
          reject(error);
          return;
        }
        fs.fsync(fd, (error) => (error ? reject(error) : resolve()));
      }),
    syncNow: () => fs.fsyncSync(open()),
    close: () => {
      if (descriptor !== undefined) fs.closeSync(descriptor);
      descriptor = undefined;
    },
  };
}
