// glibc's malloc, left to itself, raises its mmap threshold to the size of each large block freed (up to 32 MiB) and
// its trim threshold to twice that: from then on such blocks come from the arenas' heaps, which give back only what is
// free at their top, and only past the trim threshold. Node 26's V8 builds JSON.stringify's output in blocks of
// malloc's (Node 20 built it on the JavaScript heap), so the host's threads, session threads most, take and free
// blocks of up to a conversation's or an answer's size all the time: once the threshold had grown, the arenas kept
// what those blocks had used, and the host's RSS stayed far above its value after warm-up when the sessions had
// hibernated and their threads had ended (test/remote/remote-stalled-rss.test.ts). Set once, the threshold stays
// at glibc's initial value: a larger block is mapped on its own and unmapped when freed.
//
// Set through node:ffi (Node 26), before the session threads start. Where it is missing (Node 20, whose V8 does not
// take those blocks from malloc), refused (--no-experimental-ffi, the permission model without --allow-ffi), or the
// C library has no mallopt, nothing is set: the operator's MALLOC_MMAP_THRESHOLD_ does the same from the environment.

/** glibc's M_MMAP_THRESHOLD (malloc.h). */
const M_MMAP_THRESHOLD = -3;
/** glibc's initial mmap threshold, kept: a block of this size or more gets its own mapping. */
export const MMAP_THRESHOLD_BYTES = 128 * 1024;

interface Ffi {
  dlopen(
    path: null,
    definitions: Record<string, { arguments: string[]; return: string }>,
  ): { functions: Record<string, (...args: number[]) => number> };
}

/** Fixes malloc's mmap threshold; returns whether it was set. */
export function fixMallocThreshold(): boolean {
  if (process.platform !== "linux") return false;
  try {
    return withoutFfiWarning(() => {
      const ffi = process.getBuiltinModule("node:ffi") as Ffi | undefined;
      if (!ffi) return false;
      const { mallopt } = ffi.dlopen(null, { mallopt: { arguments: ["int32", "int32"], return: "int32" } }).functions;
      return mallopt?.(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) === 1;
    });
  } catch {
    return false;
  }
}

/**
 * Runs fn without the experimental-feature warning node:ffi emits when loaded: a raw line on the stderr that carries
 * the host's JSON, about a use the host makes on purpose. Any other warning is emitted as before.
 */
function withoutFfiWarning<T>(fn: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const message = typeof warning === "string" ? warning : warning.message;
    if (type === "ExperimentalWarning" && message.startsWith("FFI")) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return fn();
  } finally {
    process.emitWarning = emitWarning;
  }
}
