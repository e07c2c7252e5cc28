// Starts the host's tracing when the OTEL_* variables ask for it (traces-env.ts); the OpenTelemetry SDK is loaded
// only then, so a host that does not trace never pays for it. Worker spans reach it through the lifecycle hooks.
import type { Logger } from "../../logger.js";
import type { LifecycleHooks } from "../session/lifecycle-hooks.js";
import type { HostTracing } from "./host-tracing.js";
import { tracesFromEnv } from "./traces-env.js";

export async function startTracing(options: {
  version: string;
  content: boolean;
  logger: Logger;
  hooks: LifecycleHooks;
}): Promise<HostTracing | null> {
  const { logger } = options;
  const setting = tracesFromEnv(process.env);
  if ("refused" in setting) {
    logger.warn({ why: setting.refused }, "tracing stays off");
    return null;
  }
  if (!setting.on) return null;
  const { startOtelTracing } = await import("./otel-tracing.js");
  const tracing = startOtelTracing({
    version: options.version,
    content: options.content,
    env: process.env,
    onExportHealth: (failing, error) => {
      if (failing) logger.warn({ err: error }, "trace export failed: spans are dropped while it fails (counted)");
      else logger.info("trace export works again");
    },
    onExportFault: (error) => logger.error({ err: error }, "trace export thread fault"),
  });
  const { hooks } = options;
  hooks.on("spansEnded", ({ spans }) => tracing.export(spans));
  hooks.on("workerStarted", ({ sessionId, restored, turns, startedAtMs }) => {
    if (!restored) return;
    tracing
      .work("restore_session", { "gen_ai.conversation.id": sessionId, "acp_host.restore.turns": turns }, startedAtMs)
      .end();
  });
  hooks.on("hibernated", ({ sessionId, reason, startedAtMs }) =>
    tracing
      .work(
        "hibernate_session",
        { "gen_ai.conversation.id": sessionId, "acp_host.hibernate.reason": reason },
        startedAtMs,
      )
      .end(),
  );
  logger.info(
    {
      endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
      content: options.content,
    },
    "tracing on: spans exported over OTLP/HTTP",
  );
  return tracing;
}
