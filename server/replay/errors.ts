/** A replay file that cannot be checked: `line N: path: problem` (or a file-level problem without a line). */
export class ReplayFileError extends Error {
  readonly line: number | null;
  /** The problem without the line number. */
  readonly detail: string;

  constructor(line: number | null, detail: string) {
    super(line === null ? detail : `line ${line}: ${detail}`);
    this.line = line;
    this.detail = detail;
  }
}
