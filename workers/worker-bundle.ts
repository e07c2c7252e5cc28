// The bundle's entry (`npm run build`): the piscina task that is a session worker, and the build-time warm-up.
import "./zod-settings.js";
export { default } from "./session-entry.js";
export { warmUp } from "./warm-up.js";
