// Lint: a small rule set (no unused code, no floating promises, type imports marked as such), the thread boundary
// (code a session worker runs, workers/, and code the host process runs, src/, meet only in src/protocol/, the port's
// contract), the spawner's own boundary, and no measured time quoted in a comment of src/ or workers/ (a figure
// belongs in the bench, its reason in words). Import cycles are checked by dpdm (scripts/lint.mjs).
import tseslint from "typescript-eslint";

/** What only the host process runs: its folders and its top-level files. */
const hostOnly = [
  "**/src/host/**",
  "**/src/store/**",
  "**/src/pool/**",
  "**/src/remote/**",
  "**/src/client/**",
  "**/src/run/**",
  "**/src/cli.js",
  "**/src/flags.js",
  "**/src/host-options.js",
  "**/src/logger.js",
  "**/src/request-errors.js",
];
const workerSide = [...hostOnly, "**/src/spawner/**"];

/** A time with a fraction or a range, or said per unit ("3 ms a thread", "5 ms for 4 KB"), or with a measuring word. */
const TIME = String.raw`\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|seconds?|milliseconds?|minutes?)\b`;
const MEASURED = [
  new RegExp(String.raw`~\s?${TIME}|\d+\.\d+\s?(?:ns|µs|us|ms|s)\b|\d+(?:\.\d+)?\s?[-–]\s?${TIME}`),
  new RegExp(String.raw`${TIME}\s+(?:a|an|per)\s|${TIME}\s+for\s+\d`),
  new RegExp(String.raw`\b(?:took|cost|costs|costing|measured|median|p50|p99)\b[^.;]*${TIME}`),
];
const house = {
  rules: {
    "no-measured-time": {
      meta: {
        type: "suggestion",
        messages: {
          figure:
            "a comment quotes a measured time: the figure belongs in the bench (npm run bench), the reason in words",
        },
      },
      create(context) {
        return {
          Program() {
            for (const comment of context.sourceCode.getAllComments()) {
              if (MEASURED.some((pattern) => pattern.test(comment.value)))
                context.report({ loc: comment.loc, messageId: "figure" });
            }
          },
        };
      },
    },
  },
};

/** The rules of every typed file, the host's and the page's alike. */
const TYPED_RULES = {
  "@typescript-eslint/no-unused-vars": [
    "error",
    { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
  ],
  "@typescript-eslint/no-floating-promises": "error",
  "@typescript-eslint/consistent-type-imports": [
    "error",
    { fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
  ],
};

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "bench/results/**", "scripts/pack-test-consumer.ts"] },
  {
    files: ["src/**/*.ts", "workers/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts", "test/**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { project: "./tsconfig.lint.json", tsconfigRootDir: import.meta.dirname } },
    rules: TYPED_RULES,
  },
  {
    // The dashboard's page: the DOM's types (ui/tsconfig.json); it reaches the host's code only for src/protocol/'s
    // names and types, and renders untrusted text as text only.
    files: ["ui/**/*.ts", "ui/**/*.tsx"],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { project: "./ui/tsconfig.json", tsconfigRootDir: import.meta.dirname } },
    rules: {
      ...TYPED_RULES,
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./\\.\\./src/(?!protocol/)",
              message: "the page shares only src/protocol/ with the host",
            },
          ],
        },
      ],
      "no-restricted-properties": [
        "error",
        { property: "innerHTML", message: "untrusted text is rendered as text nodes" },
        { property: "outerHTML", message: "untrusted text is rendered as text nodes" },
        { property: "insertAdjacentHTML", message: "untrusted text is rendered as text nodes" },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: "untrusted text is rendered as text nodes",
        },
      ],
    },
  },
  {
    files: ["src/**/*.ts", "workers/**/*.ts"],
    plugins: { house },
    rules: { "house/no-measured-time": "error" },
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
              group: ["**/workers/**", ...hostOnly, "**/host/**", "./client/**"],
              message: "the spawner process imports only its own files and src/protocol/",
            },
          ],
        },
      ],
    },
  },
);
