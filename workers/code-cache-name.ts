// The session worker's V8 code cache is named by the V8 version that made it: V8 takes a cache only from its own
// version (and flags), so the caches of several Nodes sit side by side beside the bundle, and each Node's threads
// find their own.

/** The cache's file name in the bundle's directory, for the V8 version `v8` (`process.versions.v8`). */
export function codeCacheName(v8: string): string {
  return `session-entry.js.${v8}.cache`;
}
