// session/list's opaque cursor, the same for every store: the last listed session's updated time and id.
import { z } from "zod";
import { invalidParams } from "../request-errors.js";

const Cursor = z.tuple([z.string().datetime(), z.string().uuid()]);

export function encodeCursor(updatedAt: string, sessionId: string): string {
  return Buffer.from(JSON.stringify([updatedAt, sessionId])).toString("base64url");
}

export function decodeCursor(cursor: string): [string, string] {
  try {
    return Cursor.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw invalidParams("cursor", "invalid cursor: pass a nextCursor from a previous session/list answer");
  }
}
