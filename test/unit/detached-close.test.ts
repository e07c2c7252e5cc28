// closeIfStillDetached with a host faked in a few lines (DetachedCloseHost): a session nobody took over is closed
// once idle; one attached again meanwhile is left open.
import { describe, expect, it, vi } from "vitest";
import {
  closeIfStillDetached,
  type DetachedCloseHost,
  type DetachedSession,
} from "../../src/host/connection/detached-close.js";

function fakes(attachedAgain: boolean) {
  const closed: number[] = [];
  const session = {
    id: "s1",
    attended: false,
    whenIdle: () => Promise.resolve(),
    close: async (graceMs: number) => void closed.push(graceMs),
  } as unknown as DetachedSession;
  const table = new Map([["s1", session]]);
  const host: DetachedCloseHost = {
    config: { detachedCloseMs: 50, cancelGraceMs: 7 },
    logger: { info: () => {} } as unknown as DetachedCloseHost["logger"],
    admission: { accepting: true },
    sessions: { find: (id) => table.get(id) as never, delete: (id) => table.delete(id) },
  };
  if (attachedAgain) Object.assign(session, { attended: true });
  return { host, session, table, closed };
}

describe("closeIfStillDetached", () => {
  it("closes a session nobody took over, with the host's cancel grace, and takes it out of the table", async () => {
    vi.useFakeTimers();
    const { host, session, table, closed } = fakes(false);
    closeIfStillDetached(host, session);
    await vi.advanceTimersByTimeAsync(50);
    vi.useRealTimers();
    expect(closed).toEqual([7]);
    expect(table.has("s1")).toBe(false);
  });

  it("leaves a session that a connection attached again", async () => {
    vi.useFakeTimers();
    const { host, session, table, closed } = fakes(true);
    closeIfStillDetached(host, session);
    await vi.advanceTimersByTimeAsync(50);
    vi.useRealTimers();
    expect(closed).toEqual([]);
    expect(table.has("s1")).toBe(true);
  });
});
