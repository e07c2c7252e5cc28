// comlink ships its Node adapter as an ES module without a .d.mts beside it; these are its own types.
declare module "comlink/dist/esm/node-adapter.mjs" {
  import type { Endpoint } from "comlink";
  import type { NodeEndpoint } from "comlink/dist/umd/node-adapter.js";
  export default function nodeEndpoint(nep: NodeEndpoint): Endpoint;
}
