// node:crypto is loaded by the first digest, not by a worker's start: on Node 26 its load is a large part of what a
// thread's start costs beyond a bare thread's, and most sessions never take a digest.
export function sha256Hex(data: string | Buffer): string {
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(data).digest("hex");
}
