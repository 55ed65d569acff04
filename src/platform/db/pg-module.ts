// The PostgreSQL client (pg), loaded when a PostgreSQL database is first opened: a process on
// SQLite (the sandbox, every CLI command against the embedded database) never pays for it.
import type pg from 'pg';

let loaded: typeof pg | undefined;

export async function loadPg(): Promise<typeof pg> {
  return (loaded ??= (await import('pg')).default);
}

/** pg if something has loaded it: until then no PostgreSQL error can exist to be recognised. */
export function loadedPg(): typeof pg | undefined {
  return loaded;
}
