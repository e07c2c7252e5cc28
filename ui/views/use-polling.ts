// A read of the host repeated while a view is shown: the next one starts a fixed time after the last one ended (never
// two at once), and none starts once the view is gone or its inputs change.
import { useEffect } from "preact/hooks";

/**
 * Runs read now, then everyMs after each run ends, while it answers true. run counts its runs from 0 (again when the
 * inputs change); stopped says whether the view has gone meanwhile (what read learnt then is not shown).
 */
export function usePolling(
  read: (run: number, stopped: () => boolean) => Promise<boolean>,
  everyMs: number,
  inputs: unknown[],
): void {
  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    let runs = 0;
    const run = async () => {
      const again = await read(runs++, () => stopped);
      if (again && !stopped) timer = window.setTimeout(() => void run(), everyMs);
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, inputs);
}
