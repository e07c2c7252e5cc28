// A JSON-RPC message serialized once for every client it is written to directly, and framed once for every WebSocket:
// a hundred observers' sockets are written the same buffer of an update.
export class WireMessage {
  readonly json: string;
  /** Its WebSocket frame, built where it is first written to one. */
  frame: Uint8Array | null = null;

  constructor(json: string) {
    this.json = json;
  }
}
