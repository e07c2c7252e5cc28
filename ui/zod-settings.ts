// Imported first by the page, before any schema is built (zod reads `jitless` when it builds one): the page's
// Content-Security-Policy has no 'unsafe-eval', so the `new Function` of zod's JIT (and its probe for it) must not run.
import { config } from "zod";

config({ jitless: true });
