import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MSG_IMPULSE, MSG_MOVE, MSG_SPAWN } from "../../shared/net/index.ts";
import { getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { admin, createRoom, joinRoom, startTestServer, type TestRoom, type TestServer, waitForState } from "./helpers.ts";

const TARGET_TICKS = 660;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

/** Sends the next scripted input whenever the room's tick passes its mark (driven by patches, no timers). */
function script(room: TestRoom, steps: [tick: number, type: string, payload: unknown][]): void {
  let next = 0;
  room.onStateChange((state) => {
    while (next < steps.length && state.tick >= steps[next][0]) {
      const [, type, payload] = steps[next++];
      room.send(type as typeof MSG_MOVE, payload as never);
    }
  });
}

/** The CLI, with a time budget no busy machine reaches (its default is a few seconds; replay-crafted.test.ts covers it). */
function runCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["scripts/replay.ts", ...args, "--max-seconds", "60"], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("replays", () => {
  it(`records a scripted ${TARGET_TICKS}-tick room that verifies, and pinpoints a changed input`, async () => {
    // The arena at 240 Hz: 660 ticks take under 3 s of wall time.
    const scenario = { ...getBuiltinScenario("arena")!, world: { tickRate: 240 } };
    const roomId = await createRoom(srv.url, { scenario });
    const a = await joinRoom(srv.url, roomId);
    const b = await joinRoom(srv.url, roomId);
    script(a, [
      [5, MSG_MOVE, { vx: 5, vz: 0.5 }],
      [120, MSG_SPAWN, { shape: "box", size: 0.3, velocity: [1, 3, 0] }],
      [200, MSG_MOVE, { vx: -3, vz: 4, jump: true }],
      [320, MSG_IMPULSE, { bodyId: "box7", impulse: [2, 6, -1], point: [0, 0, 0] }],
      [330, MSG_IMPULSE, { bodyId: "ball3", impulse: [0, 4, 0] }],
      [450, MSG_MOVE, { vx: 0, vz: -6 }],
      [520, MSG_SPAWN, { shape: "sphere", size: 0.4 }],
    ]);
    script(b, [
      [10, MSG_MOVE, { vx: -4, vz: -2 }],
      [260, MSG_MOVE, { vx: 2, vz: 2, jump: true }],
      [400, MSG_SPAWN, { shape: "sphere", size: 0.2, velocity: [0, 0, 5] }],
      [600, MSG_MOVE, { vx: 0, vz: 0 }],
    ]);
    await waitForState(a, `tick ${TARGET_TICKS}`, (s) => s.tick >= TARGET_TICKS, 30000);
    // B's script runs on B's own patches: wait for those too, so its last input went out.
    await waitForState(b, `tick ${TARGET_TICKS} (B)`, (s) => s.tick >= TARGET_TICKS, 30000);
    await a.leave();
    await b.leave();
    // The leaves (and anything sent just before) are applied at the room's next tick: wait for two more.
    const roomTick = async () => ((await (await admin(srv.url, "GET", `/rooms/${roomId}`, undefined, null)).json()) as { tick: number }).tick;
    const leftAt = await roomTick();
    for (let i = 0; i < 200 && (await roomTick()) < leftAt + 2; i++) await new Promise((r) => setTimeout(r, 25));

    const res = await admin(srv.url, "GET", `/rooms/${roomId}/replay`, undefined, null);
    expect(res.status).toBe(200);
    const text = await res.text();
    const file = join(srv.replayDir, "copy.ndjson");
    writeFileSync(file, text);

    const report = await verifyReplay(file);
    expect(report.divergence).toBeNull();
    expect(report.ticks).toBeGreaterThanOrEqual(TARGET_TICKS);
    expect(report.keyframesChecked).toBeGreaterThanOrEqual(1);
    expect(report.inputs).toBeGreaterThanOrEqual(13); // 2 joins + 11 scripted (+ 2 leaves)
    const ok = runCli("verify", file);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^OK .* every tick's hash matches/m);
    const info = runCli("info", file);
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(/scenario: +arena/);

    // Change one input: the move B sent around tick 260 (vx 2 → 2.5).
    const lines = text.trim().split("\n");
    const index = lines.findIndex((l) => l.includes('"type":"move"') && l.includes('"vx":2,'));
    expect(index).toBeGreaterThan(0);
    const changedTick = JSON.parse(lines[index]).t as number;
    const edited = [...lines];
    edited[index] = lines[index].replace('"vx":2,', '"vx":2.5,');
    const tampered = join(srv.replayDir, "tampered.ndjson");
    writeFileSync(tampered, `${edited.join("\n")}\n`);
    const bad = await verifyReplay(tampered);
    expect(bad.divergence?.tick).toBe(changedTick);
    expect(bad.divergence?.inputs.some((i) => i.type === "move" && i.vx === 2.5)).toBe(true);
    expect(bad.divergence?.keyframeTick).toBeGreaterThanOrEqual(changedTick);
    // B's avatar is among the bodies named as different.
    expect(bad.divergence?.bodies.map((d) => d.id)).toContain(`avatar-${b.sessionId}`);
    const cli = runCli("verify", tampered);
    expect(cli.status).toBe(1);
    expect(cli.stdout).toContain(`first diverging tick ${changedTick}`);
    expect(cli.stdout).toContain(`avatar-${b.sessionId}`);

    // A crash mid-write leaves half a line: tolerated and reported.
    const cut = join(srv.replayDir, "cut.ndjson");
    const full = readFileSync(file, "utf8");
    const lastTick = full.lastIndexOf('\n{"t":', full.length - 200);
    writeFileSync(cut, full.slice(0, lastTick + 12));
    const partial = await verifyReplay(cut);
    expect(partial.divergence).toBeNull();
    expect(partial.truncated).not.toBeNull();
    const cliCut = runCli("verify", cut);
    expect(cliCut.status).toBe(0);
    expect(cliCut.stdout).toMatch(/incomplete and was ignored/);
  });

  it("records a playground room (every shape, a sensor) that verifies", async () => {
    // The playground at 240 Hz: a height field, a mesh ramp, capsules, cylinders, hulls, compounds.
    const scenario = { ...getBuiltinScenario("playground")!, world: { tickRate: 240 } };
    const roomId = await createRoom(srv.url, { scenario });
    const a = await joinRoom(srv.url, roomId);
    script(a, [
      [5, MSG_MOVE, { vx: 3, vz: -2 }],
      [90, MSG_SPAWN, { shape: "box", size: 0.3, velocity: [1, 3, 0] }],
      [160, MSG_MOVE, { vx: -2, vz: 3, jump: true }],
      [240, MSG_IMPULSE, { bodyId: scenario.bodies.find((b) => b.shape.type === "hull")!.id, impulse: [1, 3, 0] }],
    ]);
    await waitForState(a, "tick 400", (s) => s.tick >= 400, 30000);
    await a.leave();
    const res = await admin(srv.url, "GET", `/rooms/${roomId}/replay`, undefined, null);
    expect(res.status).toBe(200);
    const file = join(srv.replayDir, "playground.ndjson");
    writeFileSync(file, await res.text());
    const report = await verifyReplay(file);
    expect(report.divergence).toBeNull();
    expect(report.ticks).toBeGreaterThanOrEqual(400);
    expect(report.inputs).toBeGreaterThanOrEqual(5);
  });
});
