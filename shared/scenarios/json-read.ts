import type { ScenarioIssue } from "./format.ts";

/**
 * Reading untrusted JSON with a path for every problem: the issue list and the typed readers the scenario
 * validator is built from. Each reader returns the value, or undefined after adding an issue at `path`.
 */

/** Issues kept in a result; past this one final `(root)` issue says how many more were found. */
export const MAX_REPORTED_ISSUES = 100;

/** Path used for problems with the input as a whole. */
export const ROOT_PATH = "(root)";

/** Keys and ids quoted in messages are cut to this many characters, so garbage cannot bloat the report. */
const MAX_QUOTED_LENGTH = 64;

/** Collects issues, keeping the first MAX_REPORTED_ISSUES and counting the rest. */
export class IssueList {
  readonly kept: ScenarioIssue[] = [];
  total = 0;

  add(path: string, message: string): void {
    this.total++;
    if (this.kept.length < MAX_REPORTED_ISSUES) this.kept.push({ path: path === "" ? ROOT_PATH : path, message });
  }

  result(): ScenarioIssue[] {
    const omitted = this.total - this.kept.length;
    if (omitted > 0) {
      this.kept.push({ path: ROOT_PATH, message: `${omitted} more issue${omitted === 1 ? "" : "s"} omitted` });
    }
    return this.kept;
  }
}

export type Obj = Record<string, unknown>;

export interface NumberRule {
  /** Value must be strictly greater. */
  gt?: number;
  /** Value must be greater or equal. */
  ge?: number;
  /** Value must be less or equal. */
  le?: number;
  integer?: boolean;
  /** Unit appended to upper bounds in messages (`must be <= 1e15 kg`, `must be within ±1000 m/s²`). */
  unit?: string;
  /** Report a failed ge/le as `must be within ±le unit` (for ge = -le). */
  symmetric?: boolean;
}

/** A number for messages: as JavaScript prints it, but `1e15` rather than `1000000000000000`. */
export function fmt(n: number): string {
  return Math.abs(n) >= 1e6 ? n.toExponential().replace("e+", "e") : String(n);
}

export function keyPath(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

export function quote(s: string): string {
  return JSON.stringify(s.length > MAX_QUOTED_LENGTH ? s.slice(0, MAX_QUOTED_LENGTH) + "..." : s);
}

export function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An own property's value; inherited properties (e.g. `constructor`) do not count. `undefined` counts as absent. */
export function own(o: Obj, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

export function checkKeys(o: Obj, allowed: readonly string[], path: string, issues: IssueList): void {
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) issues.add(path, `unknown key ${quote(key)}`);
  }
}

export function readNumber(v: unknown, path: string, issues: IssueList, rule: NumberRule = {}): number | undefined {
  if (typeof v !== "number") {
    issues.add(path, "expected number");
    return undefined;
  }
  if (!Number.isFinite(v)) {
    issues.add(path, "must be a finite number");
    return undefined;
  }
  const before = issues.total;
  if (rule.integer && !Number.isInteger(v)) issues.add(path, "must be an integer");
  // One bound issue per value: the first that fails ("must be > 0" says more than "must be >= 0.001").
  const upper = (n: number) => (rule.unit ? `${fmt(n)} ${rule.unit}` : fmt(n));
  const outside = (rule.ge !== undefined && v < rule.ge) || (rule.le !== undefined && v > rule.le);
  if (rule.gt !== undefined && !(v > rule.gt)) issues.add(path, `must be > ${rule.gt}`);
  else if (outside && rule.symmetric) issues.add(path, `must be within ±${upper(rule.le as number)}`);
  else if (rule.ge !== undefined && v < rule.ge) issues.add(path, `must be >= ${fmt(rule.ge)}`);
  else if (rule.le !== undefined && v > rule.le) issues.add(path, `must be <= ${upper(rule.le)}`);
  return issues.total === before ? v : undefined;
}

export function readVector(
  v: unknown,
  length: 3 | 4,
  path: string,
  issues: IssueList,
  rule: NumberRule = {},
): number[] | undefined {
  if (!Array.isArray(v)) {
    issues.add(path, `expected array of ${length} numbers`);
    return undefined;
  }
  if (v.length !== length) {
    issues.add(path, `must have exactly ${length} elements, got ${v.length}`);
    return undefined;
  }
  const out: number[] = [];
  for (let i = 0; i < length; i++) {
    const x = readNumber(v[i], indexPath(path, i), issues, rule);
    if (x !== undefined) out.push(x);
  }
  return out.length === length ? out : undefined;
}

export function readBoolean(v: unknown, path: string, issues: IssueList): boolean | undefined {
  if (typeof v !== "boolean") {
    issues.add(path, "expected boolean");
    return undefined;
  }
  return v;
}

export function readString(
  v: unknown,
  path: string,
  issues: IssueList,
  maxLength: number,
  nonEmpty: boolean,
): string | undefined {
  if (typeof v !== "string") {
    issues.add(path, "expected string");
    return undefined;
  }
  if (nonEmpty && v.length === 0) {
    issues.add(path, "must not be empty");
    return undefined;
  }
  if (v.length > maxLength) {
    issues.add(path, `must be at most ${maxLength} characters`);
    return undefined;
  }
  return v;
}

export function readEnum<T extends string>(v: unknown, values: readonly T[], path: string, issues: IssueList): T | undefined {
  if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as T;
  issues.add(path, `must be one of ${values.map((s) => JSON.stringify(s)).join(", ")}`);
  return undefined;
}

