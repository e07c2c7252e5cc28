// The dashboard's built files (dist/ui/, written by `npm run build`), read once at start, each kept in memory as it is
// and gzipped, so serving one touches no disk on the main thread.
import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { ConfigError } from "../../flags.js";

const gzipped = promisify(gzip);

/** Where `npm run build` writes the page: dist/ui/, beside this module's dist/src/. */
export const UI_DIR = fileURLToPath(new URL("../../../ui/", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

export interface UiFile {
  contentType: string;
  body: Buffer;
  gzip: Buffer;
}

/** By path under /ui/ ("index.html", "app.js"). */
export type UiFiles = ReadonlyMap<string, UiFile>;

export async function readUiFiles(dir = UI_DIR): Promise<UiFiles> {
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch (error) {
    throw new ConfigError(`--dashboard: the page is not built (${(error as Error).message}): run npm run build`);
  }
  const files = new Map<string, UiFile>();
  await Promise.all(
    names.map(async (name) => {
      const contentType = CONTENT_TYPES[extname(name)];
      // Source maps and anything else the build leaves beside the page are not served.
      if (!contentType) return;
      const path = join(dir, name);
      const body = await readFile(path);
      files.set(relative(dir, path).split(sep).join("/"), { contentType, body, gzip: await gzipped(body) });
    }),
  );
  if (!files.has("index.html")) throw new ConfigError(`--dashboard: ${dir} has no index.html: run npm run build`);
  return files;
}
