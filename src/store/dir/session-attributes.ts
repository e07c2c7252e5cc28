// What a client sets of a stored session in the state dir, beside its log: a title it gave (session/set_title) and
// whether it is archived. The main thread owns this file (a worker owns the log and the sidecar, and rewrites the
// sidecar at every turn end): sessions/<id>.attrs.json, replaced whole (a new file flushed and renamed over it, the
// directory flushed) before the request that changed it is answered.
import { open, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { sessionsDir } from "../../protocol/log/session-log.js";

export const ATTRIBUTES_FORMAT = "acp-session-host/session-attributes";
export const ATTRIBUTES_SUFFIX = ".attrs.json";

const SessionAttributes = z.object({
  format: z.literal(ATTRIBUTES_FORMAT),
  title: z.string().nullable().default(null),
  archived: z.boolean().default(false),
});
export type SessionAttributes = Omit<z.infer<typeof SessionAttributes>, "format">;

export const NO_ATTRIBUTES: SessionAttributes = { title: null, archived: false };

export function attributesPath(stateDir: string, sessionId: string): string {
  return join(sessionsDir(stateDir), `${sessionId}${ATTRIBUTES_SUFFIX}`);
}

/** The session's attributes; none set when there is no file (or it is not one of ours, which is logged by the caller). */
export async function readAttributes(path: string): Promise<SessionAttributes> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return NO_ATTRIBUTES;
    throw error;
  }
  const { title, archived } = SessionAttributes.parse(JSON.parse(text));
  return { title, archived };
}

export async function writeAttributes(path: string, attributes: SessionAttributes): Promise<void> {
  const fresh = `${path}.new`;
  const file = await open(fresh, "w");
  try {
    await file.writeFile(JSON.stringify({ format: ATTRIBUTES_FORMAT, ...attributes }));
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(fresh, path);
  const dir = await open(dirname(path), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

export async function removeAttributes(path: string): Promise<void> {
  await Promise.all([rm(path, { force: true }), rm(`${path}.new`, { force: true })]);
}
