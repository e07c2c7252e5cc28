// Tracing is on only when OTEL_TRACES_EXPORTER names otlp, over http/protobuf; anything else is off, said why.
import { expect, it } from "vitest";
import { tracesFromEnv } from "../../src/host/traces/traces-env.js";

it("is off when nothing asks for it (the SDK's own default of otlp does not apply)", () => {
  expect(tracesFromEnv({})).toEqual({ on: false });
  expect(tracesFromEnv({ OTEL_TRACES_EXPORTER: "none" })).toEqual({ on: false });
  expect(tracesFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toEqual({ on: false });
});

it("is on for otlp, alone or among others, over http/protobuf", () => {
  expect(tracesFromEnv({ OTEL_TRACES_EXPORTER: "otlp" })).toEqual({ on: true });
  expect(tracesFromEnv({ OTEL_TRACES_EXPORTER: " console, OTLP " })).toEqual({ on: true });
  expect(tracesFromEnv({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" })).toEqual({
    on: true,
  });
});

it("refuses, saying why, an exporter or a protocol it does not have", () => {
  expect(tracesFromEnv({ OTEL_TRACES_EXPORTER: "zipkin" })).toMatchObject({ on: false, refused: /zipkin/ });
  expect(tracesFromEnv({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toMatchObject({
    on: false,
    refused: /grpc/,
  });
  // The traces' own protocol variable wins over the general one.
  expect(
    tracesFromEnv({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
    }),
  ).toEqual({ on: true });
});

it("is off when the SDK is disabled, whatever else is set", () => {
  expect(tracesFromEnv({ OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" })).toEqual({ on: false });
});
