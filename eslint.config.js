// Lint: a small rule set (no unused code, no floating promises, type imports marked as such) and the thread boundary:
// code a session worker runs (workers/) and code the host process runs (src/) meet only in src/protocol/, the port's
// contract. Import cycles are checked by dpdm (npm run lint).
import tseslint from "typescript-eslint";

const workerSide = [
  "**/src/host/**",
  "**/src/store/**",
  "**/src/pool/**",
  "**/src/remote/**",
  "**/src/client/**",
  "**/src/run/**",
  "**/src/spawner/**",
];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "bench/results/**", "scripts/pack-test-consumer.ts"] },
  {
    files: ["src/**/*.ts", "workers/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts", "test/**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { project: "./tsconfig.lint.json", tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": [
        "error",
        { fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
      ],
    },
  },
  {
    files: ["workers/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: workerSide,
              message: "a session worker reaches the host only through src/protocol/ (the port's contract)",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/workers/**"],
              message:
                "the host's threads never load session worker code: it crosses the port only as messages (src/protocol/)",
            },
          ],
        },
      ],
    },
  },
  {
    // The spawner process: it shares nothing with the host's main thread but the protocol.
    files: ["src/spawner/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "**/workers/**",
                "**/host/**",
                "**/store/**",
                "**/pool/**",
                "**/remote/**",
                "**/client/**",
                "./client/**",
              ],
              message: "the spawner process imports only its own files and src/protocol/",
            },
          ],
        },
      ],
    },
  },
);
