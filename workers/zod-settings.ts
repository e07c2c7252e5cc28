// Imported first in a session worker's bundle, before any schema is built: zod reads `jitless` when it builds a
// schema. A session's thread lives for one session, so what zod's JIT would generate with `new Function` (code V8's
// code cache never holds) is compiled again in every thread and rarely parses enough to pay for itself.
import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

config({ ...en(), jitless: true });
