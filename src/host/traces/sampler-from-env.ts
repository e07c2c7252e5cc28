// The sampler the standard variables name (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG), built from the SDK's own
// samplers as its tracer provider builds it (the SDK does not export that function): parent-based, always on, by
// default; an unknown name or an argument out of [0, 1] falls back to those defaults. The main thread asks it once per
// turn, where the turn's span is made.
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from "@opentelemetry/sdk-trace-base";

export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || "parentbased_always_on";
  const ratio = () => {
    const value = Number(env.OTEL_TRACES_SAMPLER_ARG);
    const valid = env.OTEL_TRACES_SAMPLER_ARG?.trim() && Number.isFinite(value) && value >= 0 && value <= 1;
    return new TraceIdRatioBasedSampler(valid ? value : 1);
  };
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio();
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
