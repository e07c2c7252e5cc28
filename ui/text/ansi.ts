// Terminal escapes in tool output are stripped before the text is shown: the page never interprets them, and a
// stripped escape cannot hide or recolour what is shown next to it.

// CSI and OSC sequences, single-character escapes, and the C0/C1 controls left over (tab and newline stay).
const ESCAPES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, "");
}
