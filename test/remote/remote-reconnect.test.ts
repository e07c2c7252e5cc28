// Attachment and reconnect: a session belongs to the connection that created, loaded or resumed it; another
// connection of the tenant is refused until it takes the session over with load/resume (never mid-prompt). A
// connection that drops mid-turn loses nothing: the turn finishes in the log and a new connection resumes and loads it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { logEntries, transcript } from "../support/durable.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { script, tool, waitFor } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

let host: RemoteHost;
let token: string;
beforeAll(async () => {
  // The team's token is the operator's too: the test reads _host/stats.
  const tokens = tokensFile(["team"], ["team"]);
  token = tokens.tokens.team!;
  host = await startRemoteHost(["--tokens-file", tokens.path]);
});
afterAll(async () => {
  expect(await host.stop()).toBe(0);
});

it("a dropped connection's turn completes in the log; a new connection resumes and loads it with nothing lost", async () => {
  const cwd = tempDir();
  const first = await connectHost(host.wsUrl, { token });
  const { sessionId } = await first.newSession(cwd);
  await first.prompt(sessionId, "before the drop");
  const inFlight = first.prompt(sessionId, script({ sleep_ms: 1500 }, { say: "finished while away" }));
  inFlight.catch(() => {});
  await waitFor("the turn to start", async () => (await first.stats()).sessions.busy >= 1);
  await first.dispose();
  await expect(inFlight).rejects.toThrow();

  // Reconnect at once: the turn is still running, so resume answers once it has ended.
  const second = await connectHost(host.httpUrl, { token });
  try {
    await second.resume(sessionId, cwd);
    const ended = logEntries(host.stateDir, sessionId).filter((entry) => entry.type === "turn_end")[1];
    expect(ended).toMatchObject({ type: "turn_end", stopReason: "end_turn" });
    const replayed = await second.load(sessionId, cwd);
    expect(transcript(replayed)).toEqual([
      "user: before the drop",
      "agent: You said: before the drop",
      `user: ${script({ sleep_ms: 1500 }, { say: "finished while away" })}`,
      "agent: finished while away",
    ]);
    expect((await second.prompt(sessionId, "back again")).text).toBe("You said: back again");
  } finally {
    await second.dispose();
  }
});

it("a permission request left unanswered by a dropped connection is settled cancelled: the call is refused, the turn ends", async () => {
  const cwd = tempDir();
  let asked: () => void = () => {};
  const askedOnce = new Promise<void>((resolve) => (asked = resolve));
  const first = await connectHost(host.httpUrl, {
    token,
    permission: () => {
      asked();
      return new Promise(() => {});
    },
  });
  const { sessionId } = await first.newSession(cwd, { mode: "ask" });
  const inFlight = first.prompt(
    sessionId,
    script(tool("write_file", { path: "late.txt", content: "x" }), { say: "after the ask" }),
  );
  inFlight.catch(() => {});
  await askedOnce;
  await first.dispose();
  const second = await connectHost(host.wsUrl, { token });
  try {
    await second.resume(sessionId, cwd);
    expect(logEntries(host.stateDir, sessionId).find((entry) => entry.type === "permission")).toMatchObject({
      outcome: "cancelled",
    });
    expect(existsSync(join(cwd, "late.txt"))).toBe(false);
    const replayed = transcript(await second.load(sessionId, cwd));
    expect(replayed.at(-1)).toBe("agent: after the ask");
    expect(replayed.some((line) => / failed: /.test(line))).toBe(true);
  } finally {
    await second.dispose();
  }
});

it("another connection is refused until it takes the session over, which it cannot do mid-prompt", async () => {
  const cwd = tempDir();
  const one = await connectHost(host.wsUrl, { token });
  const two = await connectHost(host.wsUrl, { token });
  try {
    const { sessionId } = await one.newSession(cwd);
    await expect(two.prompt(sessionId, "mine now?")).rejects.toThrow(/attached to another connection/);
    await expect(two.close(sessionId)).rejects.toThrow(/attached to another connection/);

    // In flight until one cancels it, however long the checks take; its first message shown before the cancel.
    let shown = false;
    const running = one.prompt(sessionId, script({ say: "one's turn" }, { sleep_ms: 60_000 }), {
      onUpdate: (update) => void (shown ||= update.sessionUpdate === "agent_message_chunk"),
    });
    await waitFor("the turn's first message", () => shown);
    await expect(two.resume(sessionId, cwd)).rejects.toThrow(/prompt is in flight/);
    await expect(two.load(sessionId, cwd)).rejects.toThrow(/prompt is in flight/);
    await one.cancel(sessionId);
    expect(await running).toMatchObject({ stopReason: "cancelled", text: "one's turn" });

    const seenByOne: string[] = [];
    one.onAnyUpdate((notification) => seenByOne.push(notification.sessionId));
    await two.load(sessionId, cwd);
    expect((await two.prompt(sessionId, "taken over")).text).toBe("You said: taken over");
    await expect(one.prompt(sessionId, "still mine?")).rejects.toThrow(/attached to another connection/);
    expect(seenByOne).toEqual([]);
  } finally {
    await one.dispose();
    await two.dispose();
  }
});
