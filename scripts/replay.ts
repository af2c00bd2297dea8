import { statSync } from "node:fs";
import type { SimInput } from "../shared/sim/index.ts";
import { isTickLine } from "../server/replay/format.ts";
import { ReplayFileError, readReplay } from "../server/replay/read.ts";
import { type VerifyReport, verifyReplay } from "../server/replay/verify.ts";

/**
 * npm run replay -- verify <file>   re-simulate and compare every tick's hash
 *                                   exit 0 identical, 1 diverged, 2 file cannot be checked
 * npm run replay -- info <file>     header, length, inputs by type, keyframes, clean end or truncation
 */

function usage(): never {
  process.stderr.write("usage: npm run replay -- verify <file>\n       npm run replay -- info <file>\n");
  process.exit(2);
}

function fmtVec(v: [number, number, number] | null): string {
  return v ? `(${v.map((x) => x.toFixed(4)).join(", ")})` : "absent";
}

function printVerify(file: string, r: VerifyReport): number {
  const h = r.header;
  const seconds = (r.ticks / h.tickRate).toFixed(1);
  if (r.truncated) {
    process.stdout.write(`note: last line (line ${r.truncated.line}, ${r.truncated.bytes} bytes) is incomplete and was ignored: the recording was cut short\n`);
  } else if (!r.ended && r.divergence === null) {
    process.stdout.write("note: no end line: the room did not close cleanly (or is still running)\n");
  }
  if (r.divergence === null) {
    process.stdout.write(
      `OK ${file}: ${r.ticks} ticks (${seconds} s at ${h.tickRate} Hz), ${r.inputs} inputs, ${r.keyframesChecked} keyframes: every tick's hash matches (scenario ${h.scenario.name}, engine ${h.engineVersion}, recorded on Node ${h.node}, verified on ${process.version})\n`,
    );
    return 0;
  }
  const d = r.divergence;
  process.stdout.write(`DIVERGED ${file}: first diverging tick ${d.tick} (recorded hash ${d.recordedHash}, replayed ${d.replayedHash})\n`);
  if (d.inputs.length > 0) {
    process.stdout.write(`inputs applied at tick ${d.tick}:\n`);
    for (const i of d.inputs) process.stdout.write(`  ${JSON.stringify(i)}\n`);
  }
  if (d.keyframeTick === null) {
    process.stdout.write("no keyframe after the divergence: bodies cannot be named (the file ends before the next one)\n");
  } else {
    process.stdout.write(`${d.differingBodies} bodies differ at keyframe tick ${d.keyframeTick} (recorded → replayed position):\n`);
    for (const b of d.bodies) process.stdout.write(`  ${b.id}: ${fmtVec(b.recorded)} → ${fmtVec(b.replayed)}\n`);
    if (d.differingBodies > d.bodies.length) process.stdout.write(`  … and ${d.differingBodies - d.bodies.length} more\n`);
  }
  return 1;
}

async function info(file: string): Promise<number> {
  const reader = readReplay(file);
  const first = await reader.next();
  if (first.done || !("header" in first.value)) throw new ReplayFileError("missing header");
  const h = first.value.header;
  let ticks = 0;
  let keyframes = 0;
  let ended: string | null = null;
  const byType = new Map<string, number>();
  const sessions = new Set<string>();
  let truncated = null;
  for (;;) {
    const next = await reader.next();
    if (next.done) {
      truncated = next.value;
      break;
    }
    if ("header" in next.value) continue;
    const line = next.value.line;
    if (isTickLine(line)) {
      ticks = line.t;
      for (const i of line.i ?? ([] as SimInput[])) {
        byType.set(i.type, (byType.get(i.type) ?? 0) + 1);
        if ("session" in i) sessions.add(i.session);
      }
    } else if (line.type === "keyframe") keyframes++;
    else if (line.type === "end") ended = line.reason;
  }
  const out = [
    `file:        ${file} (${statSync(file).size} bytes)`,
    `room:        ${h.roomId}, created ${h.createdAt}`,
    `format:      ${h.format}, engine ${h.engineVersion}, room sim ${h.simVersion}, recorded on Node ${h.node}`,
    `scenario:    ${h.scenario.name} (${h.scenario.bodies.length} bodies)`,
    `tick rate:   ${h.tickRate} Hz, max bodies ${h.options.maxBodies}, keyframe every ${h.keyframeInterval} ticks`,
    `length:      ${ticks} ticks (${(ticks / h.tickRate).toFixed(1)} s), ${keyframes} keyframes`,
    `inputs:      ${[...byType].map(([k, v]) => `${k} ${v}`).join(", ") || "none"}`,
    `players:     ${sessions.size}`,
    `ending:      ${ended !== null ? `closed (${ended})` : truncated ? `truncated: line ${truncated.line} (${truncated.bytes} bytes) incomplete` : "no end line (crashed or still running)"}`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}

async function main(): Promise<number> {
  const [command, file] = process.argv.slice(2);
  if (!file || (command !== "verify" && command !== "info")) usage();
  try {
    if (command === "info") return await info(file);
    const started = Date.now();
    const report = await verifyReplay(file, {
      onProgress: (tick, fraction) => process.stderr.write(`  tick ${tick} (${(fraction * 100).toFixed(0)}% of the file)\n`),
    });
    const code = printVerify(file, report);
    process.stderr.write(`(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    return code;
  } catch (err) {
    process.stderr.write(`cannot check ${file}: ${(err as Error).message}\n`);
    return 2;
  }
}

process.exitCode = await main();
