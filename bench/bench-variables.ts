// The values the setup leaves for the rows (ids, secrets, tokens), by name: the rows' request
// placeholders and the stored checks read them. A file of its own, below both, so the rows
// (bench-endpoints.ts) and their stored checks do not import each other.

/** The values placeholders are filled from, e.g. {organization_id} or {access_token}. */
export type BenchVariables = Record<string, string>;
