// Whether the host traces, from the standard OpenTelemetry variables only: off unless OTEL_TRACES_EXPORTER names
// otlp (the SDK's own default of otlp would make every host export to localhost:4318 unasked), over HTTP with
// protobuf, the one protocol this host speaks. Pure: the SDK is loaded only once this says yes.

export type TracesSetting = { on: false } | { on: true } | { on: false; refused: string };

export function tracesFromEnv(env: NodeJS.ProcessEnv): TracesSetting {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return { on: false };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0);
  if (!exporters.includes("otlp")) {
    const other = exporters.find((name) => name !== "none");
    return other
      ? { on: false, refused: `OTEL_TRACES_EXPORTER=${other} is not one this host exports with (it has otlp)` }
      : { on: false };
  }
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf")
    .trim()
    .toLowerCase();
  if (protocol !== "http/protobuf")
    return { on: false, refused: `OTLP protocol ${protocol} is not one this host exports with (it has http/protobuf)` };
  return { on: true };
}
