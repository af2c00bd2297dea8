import { describe, expect, it } from "vitest";
import { AvatarPredictor, type PredictorOptions } from "../../client/src/sim/avatar-predictor.ts";
import { WorldMirror } from "../../client/src/sim/world-mirror.ts";
import type { Vec3Tuple } from "../../shared/engine/index.ts";
import { kindOf } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { defineGame, type GameDefinition } from "../../shared/game/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";

/**
 * The own avatar's prediction runs the server's controller against the client's world mirror. Here a
 * RoomSim plays the server; the mirror is fed from its state every 3 ticks (a patch); inputs reach the
 * server `latency` ticks after the client applied them, and predicted ticks are stamped accordingly.
 */
function scene(): Scenario {
  return {
    name: "walls",
    bodies: [
      { id: "ground", type: "static", shape: { type: "box", halfExtents: [50, 0.5, 50] }, position: [0, -0.5, 0] },
      { id: "wall", type: "static", shape: { type: "box", halfExtents: [0.5, 2, 10] }, position: [6, 2, 0] },
      { id: "crate", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [-4, 0.5, 3] },
    ],
  };
}

function feedMirror(mirror: WorldMirror, sim: RoomSim): void {
  const b = sim.world.view();
  mirror.begin();
  for (let s = 0; s < b.slotCount; s++) {
    if (!b.alive[s]) continue;
    const p = s * 3;
    const r = s * 4;
    const kind = kindOf(b.type[s], b.shape[s]);
    mirror.upsert(b.idOf(s)!, kind, b.half[p], b.half[p + 1], b.half[p + 2], b.pos[p], b.pos[p + 1], b.pos[p + 2], b.rot[r], b.rot[r + 1], b.rot[r + 2], b.rot[r + 3]);
  }
  mirror.end();
}

interface Run {
  errors: number[];
  server: Vec3Tuple[];
  predicted: Vec3Tuple[];
}

/** What the client is doing at a tick: planar velocity, and a jump. */
type InputAt = (tick: number) => [number, number] | [number, number, boolean];

interface RunOptions {
  /** The server's scene (default: ground, a wall and a crate under Earth gravity). */
  scenario?: Scenario;
  /** The room's game (default the sandbox): its avatar is what the welcome gives the predictor. */
  game?: GameDefinition;
  /** Gravity the client's mirror starts with (default the scene's), and the tick it learns the room's. */
  mirrorGravity?: Vec3Tuple;
  learnGravityAt?: number;
  disturb?: (tick: number, p: AvatarPredictor) => void;
  predictor?: PredictorOptions;
  /** Ticks the client's stamps are off by (a wrong RTT estimate); positive: stamped later than the server applies. */
  stampOffset?: number;
  /** Server positions quantized to 1 mm, as on the wire. */
  quantize?: boolean;
}

/** Drives the server and the predictor with `inputAt(tick)`; returns the reconciled error per patch. */
function run(ticks: number, latency: number, inputAt: InputAt, options: RunOptions | ((tick: number, p: AvatarPredictor) => void) = {}): Run & { snaps: number } {
  const opts = typeof options === "function" ? { disturb: options } : options;
  const sim = new RoomSim(opts.scenario ?? scene(), {}, opts.game);
  sim.enqueue({ type: "join", session: "me" });
  sim.step();
  const mirror = new WorldMirror(60, opts.mirrorGravity ?? [...sim.world.settings.gravity]);
  feedMirror(mirror, sim);
  const predictor = new AvatarPredictor(mirror, opts.predictor);
  if (opts.game?.avatar) predictor.setSpec(opts.game.avatar);
  const wire = (v: number) => (opts.quantize ? Math.round(v * 1000) / 1000 : v);
  const avatar = sim.avatarOf("me")!;
  predictor.attach("me", avatar.bodyId, sim.world.getPosition(avatar.handle));
  const inFlight: [number, number, number, boolean][] = [];
  const out: Run = { errors: [], server: [], predicted: [] };
  for (let k = 1; k <= ticks; k++) {
    if (k === opts.learnGravityAt) mirror.setGravity(sim.world.settings.gravity);
    const [vx, vz, jump = false] = inputAt(k);
    // Client: apply now, stamped with the server tick that will apply it.
    predictor.setInput(vx, vz, jump);
    predictor.step(sim.tick + latency + (opts.stampOffset ?? 0));
    opts.disturb?.(k, predictor);
    inFlight.push([sim.tick + latency, vx, vz, jump]);
    // Server: inputs whose time has come, then the tick.
    while (inFlight.length > 0 && inFlight[0][0] <= sim.tick + 1) {
      const [, ivx, ivz, ijump] = inFlight.shift()!;
      sim.enqueue({ type: "move", session: "me", vx: ivx, vz: ivz, ...(ijump ? { jump: true } : {}) });
    }
    sim.step();
    if (sim.tick % 3 === 0) {
      feedMirror(mirror, sim);
      const p = sim.world.getPosition(avatar.handle);
      predictor.reconcile(sim.tick, wire(p[0]), wire(p[1]), wire(p[2]));
      out.errors.push(predictor.lastError);
      out.server.push([...p] as Vec3Tuple);
      out.predicted.push([...predictor.current] as Vec3Tuple);
    }
  }
  return { ...out, snaps: predictor.snaps };
}

/**
 * A zero-gravity room like `positional-correction`: nothing static under any spawn spot, so the avatar is
 * put at the origin at standing height and floats there.
 */
function zeroGravity(): Scenario {
  return {
    name: "zero-g",
    world: { gravity: [0, 0, 0] },
    bodies: [{ id: "block", type: "static", shape: { type: "box", halfExtents: [1, 1, 1] }, position: [120, 0, 0] }],
  };
}

/** Distance between the predicted and the server position at each patch. */
function gaps(r: Run): number[] {
  return r.server.map((s, i) => Math.hypot(s[0] - r.predicted[i][0], s[1] - r.predicted[i][1], s[2] - r.predicted[i][2]));
}

describe("own-avatar prediction with the shared controller", () => {
  for (const latency of [1, 6]) {
    it(`matches the server within a centimetre while walking and being stopped by a wall (latency ${latency} ticks)`, () => {
      // East 2.5 s (the wall at x = 5.5 stops it), then north-west, then stand.
      const r = run(300, latency, (k) => (k < 150 ? [6, 0] : k < 240 ? [-4, 4] : [0, 0]));
      // After the first patches (the avatar settles 5 cm from its spawn clearance before any prediction
      // history covers those ticks), prediction and server agree to quantization level.
      expect(Math.max(...r.errors.slice(5))).toBeLessThan(0.01);
      expect(Math.max(...r.errors)).toBeLessThan(0.06);
      const atWall = r.server[Math.floor(140 / 3)];
      expect(atWall[0]).toBeCloseTo(5.5 - 0.4, 2); // avatar half width 0.4 against the wall's face
      expect(r.predicted[Math.floor(140 / 3)][0]).toBeCloseTo(atWall[0], 2);
      const end = r.server[r.server.length - 1];
      expect(Math.hypot(end[0] - r.predicted[r.predicted.length - 1][0], end[2] - r.predicted[r.predicted.length - 1][2])).toBeLessThan(0.01);
    });
  }

  for (const [shape, size, radius] of [
    ["capsule", [0.6, 1.8, 0.6], 0.3],
    ["sphere", [1, 1, 1], 0.5],
  ] as const) {
    it(`a game's ${shape} avatar: the server and the prediction walk the same ${shape} into the wall and over the floor`, () => {
      const game = defineGame({ name: `${shape}-walk`, description: "walks", scenario: "arena", avatar: { shape, size: [...size] } });
      // East into the wall, a jump on the way back, then stand.
      const r = run(300, 3, (k) => (k < 150 ? [6, 0] : k < 240 ? [-4, 4, k === 200] : [0, 0]), { game });
      expect(Math.max(...r.errors.slice(5))).toBeLessThan(0.01);
      const atWall = r.server[Math.floor(140 / 3)];
      expect(atWall[0]).toBeCloseTo(5.5 - radius, 2);
      expect(r.predicted[Math.floor(140 / 3)][0]).toBeCloseTo(atWall[0], 2);
      // Standing on the floor at the end: its centre half its height above it.
      const end = r.server[r.server.length - 1];
      expect(end[1]).toBeCloseTo(size[1] / 2, 2);
      expect(Math.hypot(end[0] - r.predicted[r.predicted.length - 1][0], end[2] - r.predicted[r.predicted.length - 1][2])).toBeLessThan(0.01);
    });
  }

  it("the server's avatar body and the predicted one have the game's shape", () => {
    const game = defineGame({ name: "capsule-walk", description: "walks", scenario: "arena", avatar: { shape: "capsule", size: [0.6, 1.8, 0.6] } });
    const sim = new RoomSim(scene(), {}, game);
    sim.enqueue({ type: "join", session: "me" });
    sim.step();
    const avatar = sim.avatarOf("me")!;
    expect(sim.world.getShape(avatar.handle)).toEqual({ type: "capsule", radius: 0.3, halfHeight: 0.9 - 0.3 });
    const predictor = new AvatarPredictor(new WorldMirror(60, [0, -9.81, 0]));
    predictor.setSpec(game.avatar!);
    predictor.attach("me", avatar.bodyId, sim.world.getPosition(avatar.handle));
    expect(predictor.mirror.world.getShape(predictor.avatar!.handle)).toEqual(sim.world.getShape(avatar.handle));
  });

  it("works off a moderate error smoothly instead of snapping", () => {
    const pushed = 0.6;
    const r = run(240, 2, () => [0, 0], (k, p) => {
      if (k === 60) {
        // Something (a missed collision, a lost input) put the prediction 60 cm off.
        const world = p.mirror.world;
        const pos = world.getPosition(p.avatar!.handle);
        world.setTransform(p.avatar!.handle, [pos[0] + pushed, pos[1], pos[2]]);
      }
    });
    expect(r.snaps).toBe(0);
    const at = Math.floor(60 / 3);
    expect(r.errors[at]).toBeGreaterThan(pushed * 0.9);
    // Each patch (3 ticks at 15 %) removes at most ~40 % of what is left: no jump.
    for (let i = at; i < at + 10; i++) {
      const step = Math.abs(r.predicted[i + 1][0] - r.predicted[i][0]);
      expect(step).toBeLessThan(0.4 * pushed);
    }
    expect(r.errors[r.errors.length - 1]).toBeLessThan(0.01);
  });

  it("snaps when the error is large (a respawn or a teleport)", () => {
    const r = run(120, 2, () => [0, 0], (k, p) => {
      if (k === 30) {
        const world = p.mirror.world;
        const pos = world.getPosition(p.avatar!.handle);
        world.setTransform(p.avatar!.handle, [pos[0] + 8, pos[1], pos[2]]);
      }
    });
    expect(r.snaps).toBe(1);
    const last = r.predicted[r.predicted.length - 1];
    const server = r.server[r.server.length - 1];
    expect(Math.hypot(last[0] - server[0], last[2] - server[2])).toBeLessThan(0.01);
  });

  it("corrects the vertical velocity too: a mirror that fell under the wrong gravity ends up on the server, not 0.8 m off", () => {
    // The mirror believes in Earth gravity for the first half second of a zero-gravity room (a room
    // whose gravity the client learns late), so the predicted avatar falls while the server's floats.
    const r = run(240, 4, () => [0, 0], { scenario: zeroGravity(), mirrorGravity: [0, -9.81, 0], learnGravityAt: 30 });
    const g = gaps(r);
    console.log(`zero-g, gravity learned at tick 30: gap per patch (mm) ${g.map((e) => (e * 1000).toFixed(1)).join(" ")}`);
    // Within a second of learning the gravity (tick 30 + 60 = patch 30) the prediction stands still where
    // the server's avatar floats: no drift left (the velocity is right), and what is left of the position
    // error is under the position correction's 1 cm deadband (without the velocity correction: 85 cm, for good).
    const settled = g.slice(30);
    expect(Math.max(...settled)).toBeLessThan(0.01);
    expect(Math.max(...settled) - Math.min(...settled)).toBeLessThan(0.001);
    expect(r.snaps).toBe(0);
  });

  it("keeps agreeing through jumps (the velocity correction leaves the ballistic arc alone)", () => {
    // Jump every second (after the first, when the avatar has settled from its spawn clearance) while
    // walking back and forth.
    const r = run(360, 6, (k) => [k % 120 < 60 ? 4 : -4, 0, k > 60 && k % 60 === 10]);
    const g = gaps(r);
    const worst = Math.max(...r.errors.slice(5));
    console.log(`jumps, latency 6 ticks: worst reconciled error ${(worst * 100).toFixed(2)} cm; gap per patch (cm) ${g.map((e) => (e * 100).toFixed(1)).join(" ")}`);
    expect(worst).toBeLessThan(0.01);
    expect(r.snaps).toBe(0);
  });

  it("a wrong RTT estimate (stamps 1-2 ticks off) does not make jumps worse than position correction alone", () => {
    // Walking back and forth and jumping every 50 ticks, the server's positions quantized like the wire.
    const input: InputAt = (k) => [k % 200 < 100 ? 3 : -3, 0, k > 60 && k % 50 === 7];
    for (const stampOffset of [-2, -1, 1, 2]) {
      const worst = (predictor: PredictorOptions) => Math.max(...run(600, 5, input, { stampOffset, quantize: true, predictor }).errors.slice(20));
      const positionOnly = worst({ velocityDeadband: Number.POSITIVE_INFINITY });
      const withVelocity = worst({});
      console.log(`stamps ${stampOffset} ticks off: worst reconciled error ${(withVelocity * 100).toFixed(2)} cm (position correction alone ${(positionOnly * 100).toFixed(2)} cm)`);
      expect(withVelocity).toBeLessThanOrEqual(positionOnly + 0.001);
    }
  });
});
