import { join } from "node:path";
import { Client } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MSG_REJECTED, MSG_WELCOME, type RejectedMessage, RoomState, type WelcomeMessage } from "../../shared/net/index.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { admin, position, startTestServer, type TestRoom, type TestServer, waitForState } from "./helpers.ts";

/**
 * The two example games played as a player would, through real SDK clients over real sockets: a soccer
 * player walks the ball into the other team's goal, two tower builders stack boxes and the taller tower
 * leads. Each room's replay verifies afterwards.
 */
let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(async () => {
  await srv?.close();
});

function field(state: RoomState, key: string): unknown {
  const text = state.fields?.get(key);
  return text === undefined ? undefined : JSON.parse(text);
}

async function play(game: string): Promise<{ room: TestRoom; welcome: WelcomeMessage }> {
  const client = new Client(srv.url);
  const room = (await client.joinOrCreate("physics", { game }, RoomState)) as TestRoom;
  room.rejected = [];
  room.onMessage(MSG_REJECTED, (m: RejectedMessage) => room.rejected.push(m));
  const welcome = await new Promise<WelcomeMessage>((resolve) => {
    const off = room.onMessage(MSG_WELCOME, (w: WelcomeMessage) => {
      off();
      resolve(w);
    });
  });
  return { room, welcome };
}

/** Disposes the room, then verifies its recording with the built-in games. */
async function verifies(roomId: string): Promise<void> {
  expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
  const file = join(srv.replayDir, `${roomId}.ndjson`);
  let report = await verifyReplay(file);
  // The end line follows the dispose by a moment; a recording without it verifies as far as it goes.
  for (let i = 0; i < 50 && !report.ended; i++) {
    await new Promise((r) => setTimeout(r, 100));
    report = await verifyReplay(file);
  }
  expect(report.divergence, "the room's replay diverged").toBeNull();
  expect(report.ticks).toBeGreaterThan(60);
}

describe("the example games over real sockets", () => {
  it("soccer: the first player is red, walks the ball into the east goal and scores; the ball is back on the spot", async () => {
    const { room, welcome } = await play("soccer");
    expect(welcome.game).toBe("soccer");
    expect(welcome.avatar?.maxSpeed).toBe(6);
    const me = room.sessionId;
    await waitForState(room, "red team", (s) => field(s, `${me}:team`) === "red");
    const avatarId = `avatar-${me}`;
    // Steer behind the ball on its line to the goal, then run through it: a move per patch.
    let steering = true;
    const stop = () => {
      steering = false;
    };
    room.onStateChange((s) => {
      if (!steering) return;
      const ball = s.bodies.get("ball");
      const avatar = s.bodies.get(avatarId);
      if (!ball || !avatar) return;
      const b = position(ball);
      const a = position(avatar);
      // The point 1 m behind the ball on the line from the goal's middle through it.
      const gx = 15;
      const len = Math.hypot(gx - b[0], -b[2]) || 1;
      const behind = [b[0] - ((gx - b[0]) / len) * 1.0, b[2] - (-b[2] / len) * 1.0];
      const aligned = Math.hypot(a[0] - behind[0], a[2] - behind[1]) < 0.6 || (a[0] < b[0] - 0.5 && Math.abs(a[2] - b[2]) < 0.4);
      const tx = aligned ? gx : behind[0];
      const tz = aligned ? 0 : behind[1];
      const d = Math.hypot(tx - a[0], tz - a[2]) || 1;
      room.send("move", { vx: (6 * (tx - a[0])) / d, vz: (6 * (tz - a[2])) / d });
    });
    try {
      await waitForState(room, "a red goal", (s) => field(s, "red") === 1, 40_000);
    } finally {
      stop();
    }
    room.send("move", { vx: 0, vz: 0 });
    const after = await waitForState(room, "the ball back on the spot", (s) => {
      const b = s.bodies.get("ball");
      return b && Math.hypot(position(b)[0], position(b)[2]) < 0.05 ? s : null;
    });
    expect(field(after, `${me}:goals`)).toBe(1);
    expect(field(after, "status")).toBe("playing");
    expect(room.rejected).toEqual([]);
    const roomId = room.roomId;
    await room.leave();
    await verifies(roomId);
  }, 90_000);

  it("tower: two builders drop boxes where they stand; each player's height is their stack, the taller one leads", async () => {
    const { room: a } = await play("tower");
    const { room: b } = await play("tower");
    expect(b.roomId).toBe(a.roomId);
    await waitForState(a, "both builders", (s) => field(s, `${a.sessionId}:boxes`) === 20 && field(s, `${b.sessionId}:boxes`) === 20);
    // Two drops a second at most: every 600 ms, four from a, two from b, each where its builder stands.
    for (let i = 0; i < 4; i++) {
      a.send("drop", {});
      if (i < 2) b.send("drop", {});
      await new Promise((r) => setTimeout(r, 600));
    }
    const s = await waitForState(
      a,
      "both stacks at rest",
      (st) => (field(st, `${a.sessionId}:boxes`) === 16 && field(st, `${b.sessionId}:boxes`) === 18 && (field(st, `${b.sessionId}:height`) as number) > 0.9 && (field(st, `${a.sessionId}:height`) as number) > 1.9 ? st : null),
      20_000,
    );
    console.log(`tower: heights ${field(s, `${a.sessionId}:height`)} m and ${field(s, `${b.sessionId}:height`)} m, leader ${field(s, "leader") === a.sessionId ? "a" : "b"}`);
    expect(field(s, `${a.sessionId}:height`) as number).toBeCloseTo(2, 1);
    expect(field(s, `${b.sessionId}:height`) as number).toBeCloseTo(1, 1);
    expect(field(s, "leader")).toBe(a.sessionId);
    expect(a.rejected).toEqual([]);
    const roomId = a.roomId;
    await Promise.all([a.leave(), b.leave()]);
    await verifies(roomId);
  }, 90_000);
});
