// A wait on a model response that a cancel ends at once, whatever the response does. The cancelled turn must not
// depend on how (or whether) the HTTP client reacts to the abort: a body that went on streaming, an iterator whose
// clean-up waited for it, would hold the turn's end and so the session's next turn.

/**
 * Settles as `work` does, or rejects with the signal's reason as soon as the signal aborts, whichever comes first.
 * What `work` does after an abort is left to end on its own: nothing waits for it and its failure is ignored.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
