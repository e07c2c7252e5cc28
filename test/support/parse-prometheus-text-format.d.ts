// The package ships no types: its one function, as test/host/metrics.test.ts uses it.
declare module "parse-prometheus-text-format" {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
