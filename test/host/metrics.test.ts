// --metrics-listen: Prometheus text at /metrics, read by a Prometheus text parser, with the host's figures in it.
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { startHost, tempDir } from "../support/host.js";
import { bash, script, waitFor } from "../support/tools.js";

interface Family {
  name: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; count?: string }>;
}

describe("metrics", () => {
  it("serves the host's figures, named acp_session_host_*, with no per-session series", async () => {
    const host = await startHost([
      "--metrics-listen",
      "127.0.0.1:0",
      "--default-mode",
      "auto",
      "--allow-fault-injection",
      "--cancel-grace-ms",
      "200",
    ]);
    try {
      const url = await waitFor("the metrics URL", () => /"url":"(http:[^"]+\/metrics)"/.exec(host.stderr())?.[1]);
      const { sessionId } = await host.client.newSession(tempDir());
      await host.client.prompt(sessionId, "hello");
      await host.client.prompt(sessionId, script(bash("true"), { say: "ran" }));
      const crasher = (await host.client.newSession(tempDir())).sessionId;
      await expect(host.client.prompt(crasher, script({ crash: "boom" }))).rejects.toMatchObject({
        code: -32603,
        data: expect.objectContaining({ reason: "WORKER_FAILED" }),
      });

      // The state dir's size is measured in the background: present once its first walk has ended.
      const text = await waitFor("the state dir size", async () => {
        const response = await fetch(url);
        expect(response.status).toBe(200);
        const body = await response.text();
        return body.includes("acp_session_host_state_dir_bytes ") ? body : undefined;
      });
      const families = parsePrometheusTextFormat(text) as Family[];
      const family = (name: string) => families.find((f) => f.name === name);
      const value = (name: string, labels: Record<string, string>) =>
        Number(family(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value);

      for (const f of families) expect(f.name).toMatch(/^acp_session_host_/);
      // The crashed session lost its worker: it is hibernated until its next prompt restores it.
      expect(value("acp_session_host_sessions", { state: "live" })).toBe(1);
      expect(value("acp_session_host_sessions", { state: "hibernated" })).toBe(1);
      expect(value("acp_session_host_sessions", { state: "stored" })).toBe(2);
      // Two logs, their sidecars, the directories: a few KiB at least.
      expect(value("acp_session_host_state_dir_bytes", {})).toBeGreaterThan(4096);
      expect(value("acp_session_host_prompts_total", { stop_reason: "end_turn" })).toBe(2);
      expect(value("acp_session_host_prompts_total", { stop_reason: "error" })).toBe(1);
      expect(Number(family("acp_session_host_prompt_duration_seconds")?.metrics[0]?.count)).toBe(3);
      expect(value("acp_session_host_tool_calls_total", { kind: "execute", outcome: "completed" })).toBe(1);
      expect(value("acp_session_host_worker_exits_total", { cause: "crashed" })).toBe(1);
      // Requests to the model: the echo, and the script's two (its bash step, then its answer); the crash ended its
      // worker before its request did.
      expect(value("acp_session_host_model_requests_total", { tenant: "none", model: "scripted", outcome: "ok" })).toBe(
        3,
      );
      expect(family("acp_session_host_trace_spans_dropped")?.metrics[0]?.value).toBe("0");
      expect(family("acp_session_host_workers")).toBeDefined();
      expect(value("acp_session_host_spawner_restarts", {})).toBe(0);
      expect(family("acp_session_host_process_resident_memory_bytes")).toBeDefined();
      expect(family("acp_session_host_nodejs_eventloop_lag_seconds")).toBeDefined();
      // No series names a session.
      const labels = families.flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
      expect(labels).not.toContain(sessionId);
    } finally {
      await host.dispose();
    }
  });
});
