// `--name value` flags of the reliability scripts, as numbers.
export function numberFlag(argv: readonly string[], name: string, fallback: number): number {
  const index = argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(argv[index + 1]);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`--${name} needs a whole number, got ${argv[index + 1]}`);
  return value;
}
