import { ReplayBudgetError, scanBounded, verifyBounded } from "../server/replay/bounded.ts";
import { ReplayFileError } from "../server/replay/errors.ts";
import { DEFAULT_VERIFY_SECONDS, DEFAULT_VERIFY_SECONDS_PER_TICK, MAX_SECONDS_PER_TICK } from "../server/replay/format.ts";
import type { VerifyReport } from "../server/replay/verify.ts";

const USAGE = `usage: npm run replay -- verify <file> [--max-seconds S] [--max-bytes N]
       npm run replay -- info   <file> [--max-seconds S] [--max-bytes N]
       npm run replay -- --help

  verify   check every line (header, scenario, every input) with the server's own validators, then
           re-simulate and compare every tick's hash
  info     the same checks, no simulation; prints header, length, inputs by type, keyframes, ending

  --max-seconds S   wall-clock budget, a hard total (0: none); default ${DEFAULT_VERIFY_SECONDS} s plus ${DEFAULT_VERIFY_SECONDS_PER_TICK * 1000} ms per tick
                    of the file, and at most ${MAX_SECONDS_PER_TICK} s for any one tick; when spent the check stops, exit 2
  --max-bytes N     larger files are refused unread; default REPLAY_FILE_MAX_BYTES (environment, else the
                    server's default) plus room for the closing lines

exit codes:
  0  verified: every tick's hash matches (info: the file is valid)
  1  diverged: the first diverging tick and its line, and the bodies that differ at the next keyframe
  2  invalid or unverifiable: "line N: <field>: <problem>", other engine or sim version, over the size
     limit, or the time budget ran out before the end; also a usage error
`;

function usage(message: string): never {
  process.stderr.write(`${message}\n${USAGE}`);
  process.exit(2);
}

// A reader that stops early (`| head`) closes stdout: end quietly with exit 0 instead of an EPIPE stack trace.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

interface Args {
  command: "verify" | "info";
  file: string;
  maxSeconds: number;
  /** Budget added per tick of the file (0 when --max-seconds set a hard total). */
  secondsPerTick: number;
  maxBytes: number | undefined;
}

function parseArgs(argv: string[]): Args {
  const positional: string[] = [];
  let maxSeconds = DEFAULT_VERIFY_SECONDS;
  let secondsPerTick = DEFAULT_VERIFY_SECONDS_PER_TICK;
  let maxBytes: number | undefined;
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k];
    if (arg === "--max-seconds" || arg === "--max-bytes") {
      const value = Number(argv[++k]);
      if (argv[k] === undefined || !Number.isFinite(value) || value < 0) usage(`${arg} takes a number >= 0`);
      if (arg === "--max-seconds") {
        maxSeconds = value;
        secondsPerTick = 0;
      }
      else maxBytes = value;
    } else if (arg === "-h" || arg === "--help") {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    else if (arg.startsWith("--")) usage(`unknown option ${arg.slice(0, 40)}`);
    else positional.push(arg);
  }
  const [command, file, ...rest] = positional;
  if (command !== "verify" && command !== "info") usage(command === undefined ? "missing command (verify or info)" : `unknown command ${command.slice(0, 40)}`);
  if (!file) usage(`missing file: npm run replay -- ${command} <file>`);
  if (rest.length > 0) usage(`unexpected argument ${rest[0].slice(0, 40)}`);
  return { command, file, maxSeconds, secondsPerTick, maxBytes };
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
  if (d.recordedHash === "") {
    process.stdout.write(`DIVERGED ${file}: every tick's hash matches, but bodies differ at the keyframe of tick ${d.tick} (line ${d.line})\n`);
  } else {
    process.stdout.write(`DIVERGED ${file}: first diverging tick ${d.tick} (line ${d.line}: recorded hash ${d.recordedHash}, replayed ${d.replayedHash})\n`);
  }
  if (d.inputs.length > 0) {
    process.stdout.write(`inputs applied at tick ${d.tick}:\n`);
    for (const i of d.inputs) {
      const json = JSON.stringify(i);
      process.stdout.write(`  ${json.length > 300 ? `${json.slice(0, 300)}… (${json.length} characters)` : json}\n`);
    }
  }
  if (d.keyframeTick === null) {
    process.stdout.write("no keyframe after the divergence: bodies cannot be named (the file ends before the next one)\n");
  } else if (d.differingBodies === 0) {
    process.stdout.write(`no body differs at keyframe tick ${d.keyframeTick} (line ${d.keyframeLine}): the hash recorded for tick ${d.tick} is not the replay's, yet the state agrees again\n`);
  } else {
    process.stdout.write(`${d.differingBodies} bodies differ at keyframe tick ${d.keyframeTick} (line ${d.keyframeLine}) (recorded → replayed position):\n`);
    for (const b of d.bodies) process.stdout.write(`  ${JSON.stringify(b.id)}: ${fmtVec(b.recorded)} → ${fmtVec(b.replayed)}\n`);
    if (d.differingBodies > d.bodies.length) process.stdout.write(`  … and ${d.differingBodies - d.bodies.length} more\n`);
  }
  return 1;
}

async function info(args: Args): Promise<number> {
  const s = await scanBounded(args.file, { maxSeconds: args.maxSeconds, ...(args.maxBytes !== undefined ? { maxBytes: args.maxBytes } : {}) });
  const h = s.header;
  const ending = s.end
    ? `closed (${s.end.reason})`
    : s.truncated
      ? `truncated: line ${s.truncated.line} (${s.truncated.bytes} bytes) incomplete`
      : "no end line (crashed or still running)";
  const out = [
    `file:        ${args.file} (${s.bytes} bytes)`,
    `room:        ${h.roomId}, created ${h.createdAt}`,
    `format:      ${h.format}, engine ${h.engineVersion}, room sim ${h.simVersion}, recorded on Node ${h.node}`,
    `scenario:    ${h.scenario.name} (${h.scenario.bodies.length} bodies)`,
    `tick rate:   ${h.tickRate} Hz, max bodies ${h.options.maxBodies}, keyframe every ${h.keyframeInterval} ticks`,
    `length:      ${s.ticks} ticks (${(s.ticks / h.tickRate).toFixed(1)} s), ${s.keyframes} keyframes`,
    `inputs:      ${[...s.inputsByType].map(([k, v]) => `${k} ${v}`).join(", ") || "none"}`,
    `players:     ${s.players}`,
    `ending:      ${ending}`,
    "valid:       every line passes the server's validation",
  ];
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  try {
    if (args.command === "info") return await info(args);
    const started = Date.now();
    const report = await verifyBounded(args.file, {
      maxSeconds: args.maxSeconds,
      secondsPerTick: args.secondsPerTick,
      maxTickSeconds: args.maxSeconds === 0 ? 0 : MAX_SECONDS_PER_TICK,
      ...(args.maxBytes !== undefined ? { maxBytes: args.maxBytes } : {}),
      onProgress: (tick, ticks) => process.stderr.write(`  tick ${tick} of ${ticks}\n`),
    });
    const code = printVerify(args.file, report);
    process.stderr.write(`(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    return code;
  } catch (err) {
    if (err instanceof ReplayBudgetError) {
      process.stderr.write(`cannot finish checking ${args.file}: ${err.message}; allow more with --max-seconds\n`);
    } else if (err instanceof ReplayFileError) {
      process.stderr.write(`cannot check ${args.file}: ${err.message}\n`);
    } else {
      // Not expected (every problem of the file is a ReplayFileError); reported without a stack trace.
      process.stderr.write(`cannot check ${args.file}: ${err instanceof Error ? err.message : String(err)}\n`);
    }
    return 2;
  }
}

process.exitCode = await main();
