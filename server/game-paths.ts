/** The GAMES variable's paths: comma-separated, blanks ignored. */
export function gamePaths(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
}
