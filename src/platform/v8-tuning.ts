// V8 settings for a serving process, applied by `erx serve` before anything else runs.
//
// Allocation-site pretenuring: when most objects from one object or array literal are still
// alive at a young-generation GC, V8 starts allocating that literal's objects directly in the
// old generation. A request's objects live across a group COMMIT, and a burst (startup, a
// bulk create) can make a per-request literal look long-lived. What fits the measurements
// (BENCHMARKS.md): such a literal then sits in the old generation after its request has
// ended and, until the next full GC, keeps what it points at (the request, its reply, its
// rows) alive through every young GC. In 9 of 25 server processes on the drug update every
// young GC carried ~2.9 MB of survivors and took ~10 ms instead of ~1 ms, and the process
// served about 30 % fewer requests, for its whole life; with pretenuring off, none of 25 did.
// Request objects are short-lived by nature: allocating them young is what this server wants.
import v8 from 'node:v8';

/** Turns pretenuring off in this process's V8. V8 reads the flag at every GC, so setting it now takes effect. */
export function tuneV8ForServing(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
