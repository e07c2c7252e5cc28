// A text message as the one WebSocket frame a server sends of it (unmasked, final), built by ws's own framing.
import * as ws from "ws";

interface FrameOptions {
  fin: boolean;
  opcode: number;
  mask: boolean;
  readOnly: boolean;
  rsv1: boolean;
}
/** ws exports its Sender, which @types/ws does not declare. */
const { Sender } = ws as unknown as { Sender: { frame(data: Buffer, options: FrameOptions): Buffer[] } };
const TEXT = 0x1;

export function textFrame(text: string): Buffer {
  return Buffer.concat(
    Sender.frame(Buffer.from(text), { fin: true, opcode: TEXT, mask: false, readOnly: false, rsv1: false }),
  );
}
