/**
 * Machine noise probe, run beside the server and the bots (same priority): how late a 5 ms timer fires
 * in an otherwise idle process. One JSON line per second on stdout: the largest lateness (ms) and how
 * many wake-ups were later than 16.7 ms. A stall seen here too was the machine's (other processes, the
 * hypervisor), not the server's own work. Exits when its parent goes away.
 */
const PERIOD_MS = 5;
let last = performance.now();
let max = 0;
let over = 0;
let wakeups = 0;
setInterval(() => {
  const now = performance.now();
  const late = now - last - PERIOD_MS;
  last = now;
  if (late > max) max = late;
  if (late > 1000 / 60) over++;
  wakeups++;
}, PERIOD_MS);
setInterval(() => {
  process.stdout.write(`${JSON.stringify({ max: Math.round(max * 100) / 100, over, wakeups })}\n`);
  max = 0;
  over = 0;
  wakeups = 0;
}, 1000);
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
