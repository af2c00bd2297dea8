/** k6 provides a console (https://grafana.com/docs/k6/latest/javascript-api/); @types/k6 does not declare it. */
declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
};
