// comlink over a Node MessagePort through Node-style listeners. Handed the port itself, comlink listens DOM-style,
// and Node then builds a MessageEvent per message: on Node 26 the first one in a thread loads undici's whole bundle,
// which cost more than the rest of a session thread's start, and every later one costs the receiving thread an object
// it does not need.
import type { MessagePort } from "node:worker_threads";
import type { Endpoint } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";

export function portEndpoint(port: MessagePort): Endpoint {
  return nodeEndpoint(port);
}
