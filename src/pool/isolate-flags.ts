// V8's settings for the host's isolates, set once before the first session worker starts (V8 flags are the
// process's, and a Worker cannot be given its own).
//
// The memory reducer: once an isolate's allocation rate drops, V8 runs up to three full collections to give memory
// back, and arms again after the next full collection. A session waiting on its model looks exactly like that: with
// 200 sessions on a slow model, those collections (mostly page faults, as pages were given back and taken again) cost
// more host CPU than the turns did. One collection each time halves that and keeps RSS after a round where it was
// (figures in docs/performance.md, "Measured choices in the code").
//
// The large-page pool (V8 14, Node 26): the page of a large object collected young (a large string built and dropped)
// is kept, up to 32 MiB, for the next large object, and given back only when some isolate ends or on a memory-pressure
// collection, not as time passes. A host at rest after a turn with a 30 MB answer kept such a page (the answer's text,
// collected after the idle collection had run) until a session's thread next ended. Node 20's V8 gives such a page back
// when it collects the object; with the pool off, so does Node 26's.
//
// V8 accepts a code cache only from an isolate with the same flags: the build writes the session worker's cache
// under these, as the Node that runs it computes them (scripts/write-code-cache.mjs), or every thread would reject it
// and compile the bundle again.
import { setFlagsFromString } from "node:v8";

// V8 11 (Node 20) names it --memory-reducer-single-gc; later V8 (Node 24) has --memory-reducer-gc-count instead and
// rejects the old name (with an error line on stderr and no effect).
const V8_MAJOR = Number(process.versions.v8.split(".")[0]);

export const ISOLATE_FLAGS: readonly string[] = [
  V8_MAJOR < 12 ? "--memory-reducer-single-gc" : "--memory-reducer-gc-count=1",
  ...(V8_MAJOR >= 14 ? ["--no-large-page-pool"] : []),
];

export function tuneIsolates(): void {
  setFlagsFromString(ISOLATE_FLAGS.join(" "));
}
