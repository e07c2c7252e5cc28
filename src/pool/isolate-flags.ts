// V8's settings for the host's isolates, set once before the first session worker starts (V8 flags are the
// process's, and a Worker cannot be given its own).
//
// The memory reducer: once an isolate's allocation rate drops, V8 runs up to three full collections to give memory
// back, and arms again after the next full collection. A session waiting on its model looks exactly like that. With
// 200 sessions on a slow model, those collections cost more host CPU than the turns did: 218 full collections in one
// round, each some 35 ms of CPU (mostly page faults as pages were given back and taken again), 5.8–7.0 s of host CPU
// for 400 turns against 3.9–4.2 s with one collection each time, which gives back nearly as much (docs/performance.md).
import { setFlagsFromString } from "node:v8";

export function tuneIsolates(): void {
  setFlagsFromString("--memory-reducer-single-gc");
}
