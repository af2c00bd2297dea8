import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admin, createRoom, startTestServer, type TestServer } from "./helpers.ts";

/** The admin API on scenarios with joints: a bad joint is a 400 naming its field, and no room is made. */

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

const BODIES = [
  { id: "ground", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] },
  { id: "door", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 1, 0.05] }, position: [0.5, 1.01, 0] },
];

async function roomIds(): Promise<string[]> {
  const rooms = (await (await admin(srv.url, "GET", "/rooms", undefined, null)).json()) as { roomId: string }[];
  return rooms.map((r) => r.roomId).sort();
}

describe("POST /rooms with joints", () => {
  it("a joint naming a missing body, a negative maxForce or a zero axis: 400 naming each field, nothing created", async () => {
    const before = await roomIds();
    const cases: [unknown, string][] = [
      [{ id: "hinge", type: "hinge", bodyA: "door", bodyB: "frame", anchor: [0, 1, 0], axis: [0, 1, 0] }, 'scenario.joints[0].bodyB: no body "frame"'],
      [
        { id: "hinge", type: "hinge", bodyA: "door", bodyB: null, anchor: [0, 1, 0], axis: [0, 1, 0], motor: { targetVelocity: 1, maxForce: -2 } },
        "scenario.joints[0].motor.maxForce: must be >= 0",
      ],
      [{ id: "hinge", type: "hinge", bodyA: "door", bodyB: null, anchor: [0, 1, 0], axis: [0, 0, 0] }, "scenario.joints[0].axis: must not be a zero vector (length > 0.000001)"],
      [{ id: "weld", type: "fixed", bodyA: "door", bodyB: "door", anchor: [0, 1, 0] }, "scenario.joints[0].bodyB: must differ from bodyA: a joint connects two different bodies (or a body and the world, null)"],
    ];
    for (const [joint, message] of cases) {
      const res = await admin(srv.url, "POST", "/rooms", { scenario: { name: "door", bodies: BODIES, joints: [joint] } });
      expect(res.status, message).toBe(400);
      const body = (await res.json()) as { message: string; issues: { path: string; message: string }[] };
      expect(body.message).toBe(message);
      expect(body.issues).toHaveLength(1);
      expect(`${body.issues[0].path}: ${body.issues[0].message}`).toBe(message);
    }
    expect(await roomIds()).toEqual(before);
  });

  it("the same door on a valid hinge makes a room", async () => {
    const before = await roomIds();
    const joint = { id: "hinge", type: "hinge", bodyA: "door", bodyB: null, anchor: [0, 1.01, 0], axis: [0, 1, 0], limits: [-Math.PI / 2, 0] };
    const roomId = await createRoom(srv.url, { scenario: { name: "door", bodies: BODIES, joints: [joint] } });
    expect(await roomIds()).toEqual([...before, roomId].sort());
    expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBeLessThan(300);
  });
});
