// base64url of a text's UTF-8 bytes, as a WebSocket subprotocol may carry it (no "+", "/" or "=").
export function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
