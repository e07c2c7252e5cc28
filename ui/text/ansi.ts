// Terminal escapes in tool output are stripped before the text is shown: the page never interprets them, and a
// stripped escape cannot hide or recolour what is shown next to it. strip-ansi takes the escape sequences (CSI, OSC
// such as hyperlinks); the control characters left over go too, but for tab and newline.
import stripAnsiSequences from "strip-ansi";

const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function stripAnsi(text: string): string {
  return stripAnsiSequences(text).replace(CONTROLS, "");
}
