// One refusal pauses the whole endpoint: the requests of every session wait until the provider's Retry-After (plus
// jitter), then go again, the refused one first; none of them fails.
import { afterEach, expect, it, vi } from "vitest";
import { EndpointScheduler, Refused } from "../../workers/gateway/endpoint-scheduler.js";

afterEach(() => {
  vi.useRealTimers();
});

it("a Retry-After pauses every request of the endpoint, and the refused one goes first after it", async () => {
  vi.useFakeTimers();
  const scheduler = new EndpointScheduler({ cap: 2, queueTimeoutMs: 0, random: () => 0 });
  const sent: string[] = [];
  let refuseOnce = true;
  const submit = (name: string) =>
    scheduler.submit({
      signal: new AbortController().signal,
      share: { tenant: null, tree: name, priority: "interactive" },
      tokens: () => 1,
      send: () => {
        sent.push(name);
        if (name === "a" && refuseOnce) {
          refuseOnce = false;
          return Promise.reject(new Refused("HTTP 429", new Headers({ "retry-after": "1" })));
        }
        return Promise.resolve(name);
      },
    });
  const a = submit("a");
  await vi.advanceTimersByTimeAsync(0);
  expect(sent).toEqual(["a"]);
  const b = submit("b");
  const c = submit("c");
  await vi.advanceTimersByTimeAsync(999);
  expect(sent).toEqual(["a"]);
  expect(scheduler.figures()).toMatchObject({ queued: 3, inFlight: 0, refused: 1, window: 1 });
  await vi.advanceTimersByTimeAsync(1);
  expect(await Promise.all([a, b, c])).toEqual(["a", "b", "c"]);
  expect(sent).toEqual(["a", "a", "b", "c"]);
});
