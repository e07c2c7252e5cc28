// Every test file's temp dirs (tempDir() in support/temp-dirs.ts) are removed once its tests and its own afterAll hooks
// are done (vitest runs after-hooks last registered first, and this file's are registered before the file's).
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.js";

afterAll(removeTempDirs);
