// A wait on a model response ends at the cancel, whatever the response does after it; until then it is the response.
import { getEventListeners } from "node:events";
import { expect, it } from "vitest";
import { untilAborted } from "../../workers/gateway/until-aborted.js";

it("settles as the work does, or rejects with the abort's reason at once though the work never settles", async () => {
  const controller = new AbortController();
  for (let i = 0; i < 100; i++) expect(await untilAborted(Promise.resolve(i), controller.signal)).toBe(i);
  await expect(untilAborted(Promise.reject(new Error("HTTP 500")), controller.signal)).rejects.toThrow("HTTP 500");
  // One listener per wait, removed when the work settles.
  expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);

  let failLater: (error: Error) => void = () => {};
  const never = new Promise<string>((_, reject) => (failLater = reject));
  const waiting = untilAborted(never, controller.signal);
  const reason = new Error("cancelled by the client");
  controller.abort(reason);
  await expect(waiting).rejects.toBe(reason);
  // Its later failure is nobody's: no unhandled rejection (vitest fails the run on one).
  failLater(new Error("the body's clean-up failed"));
  await new Promise((resolve) => setImmediate(resolve));
  await expect(untilAborted(Promise.resolve("late"), controller.signal)).rejects.toBe(reason);
});
