// The exec helpers as the sandbox starts them, to drive outside a sandbox.
import { HELPER_ARGV } from "../../src/spawner/exec-helper.js";

export const HELPERS = Object.entries(HELPER_ARGV).map(([name, argv]) => ({ name, argv }));
