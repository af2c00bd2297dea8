import { BODY_DEFAULTS, type BodyDef, type ContactEvent, type Vec3Tuple, World, type WorldSnapshot } from "../engine/index.ts";
import { type MaterialKey, type MaterialOverrides, materialPatchOf, type RoomSettings, type RoomSettingsPatch, roomSettingsOf, worldPatchOf } from "../net/knobs.ts";
import type { Scenario } from "../scenarios/index.ts";
import { AVATAR, type Avatar, avatarBodyId, clampPlanar, findSpawnSpot, updateAvatar } from "./avatar.ts";
import type { SimInput } from "./inputs.ts";

/**
 * Version of the room simulation rules (avatar controller, spawn placement, input semantics). Replays
 * record it next to ENGINE_VERSION; bump it whenever a change here alters results.
 */
export const SIM_VERSION = "2";

export interface SimOptions {
  /** Spawns are ignored once the world holds this many bodies (avatars always get in). */
  maxBodies: number;
}

export const DEFAULT_SIM_OPTIONS: Readonly<SimOptions> = Object.freeze({ maxBodies: 5000 });

/** Spawned bodies appear this far beyond the avatar's side, and this high above its centre, metres. */
const SPAWN_GAP = 0.2;
const SPAWN_LIFT = 0.5;
const scratch: Vec3Tuple = [0, 0, 0];

/**
 * A RoomSim's whole state between ticks (see `RoomSim.snapshot`): the world's exact snapshot plus the
 * room's own bookkeeping. Plain data and typed arrays only.
 */
export interface RoomSimSnapshot {
  world: WorldSnapshot;
  scenario: Scenario;
  tick: number;
  worldGeneration: number;
  avatars: Avatar[];
  pending: SimInput[];
  spawnCounter: number;
  materials: [string, [number, number]][];
  overrides: MaterialOverrides;
  /** A player has joined since the last load (RoomSim.join restarts an unwatched world). */
  watched: boolean;
  /** Bodies inside each sensor (RoomSim.sensorCounts), in its order. */
  sensors: [string, number][];
}

export interface StepResult {
  /** The tick just computed (1 for the first step). */
  tick: number;
  /** Inputs applied at the start of this tick, in order. */
  applied: SimInput[];
  /** world.stateHash() after the step. */
  hash: string;
}

/**
 * How many bodies are inside each sensor, by sensor id, kept from the world's sensor events
 * (sensorEnter +1, sensorExit -1; a body removed inside a sensor exits it). Every sensor of the scenario
 * is there from the load, at 0, in the scenario's order; the map only changes through events, which come
 * in a deterministic order, so its contents and order are part of the room's deterministic state.
 */
class SensorCounts {
  readonly counts = new Map<string, number>();

  /** Counts one event; a field rather than a method so the step hands it to the world without a closure per tick. */
  readonly count = (e: ContactEvent): void => {
    if (e.type === "sensorEnter") this.counts.set(e.a, (this.counts.get(e.a) ?? 0) + 1);
    else if (e.type === "sensorExit") this.counts.set(e.a, Math.max(0, (this.counts.get(e.a) ?? 0) - 1));
  };

  /** Every sensor of a freshly loaded scenario, at 0. */
  reset(scenario: Scenario): void {
    this.counts.clear();
    for (const def of scenario.bodies) if (def.sensor === true) this.counts.set(def.id, 0);
  }

  restore(entries: readonly [string, number][]): void {
    this.counts.clear();
    for (const [id, n] of entries) this.counts.set(id, n);
  }
}

/**
 * The deterministic core of a room: a world built from a scenario, avatars and the inputs that drive
 * them. The state after tick N is a pure function of (scenario, options, inputs with their ticks): no
 * clock, no randomness, every iteration in insertion/slot order. The server room, the replay verifier
 * and (later) the browser's prediction all run this same class.
 */
export class RoomSim {
  world!: World;
  scenario!: Scenario;
  readonly options: SimOptions;
  /** Ticks since the room started (continues across scenario loads; the world's own tick restarts). */
  tick = 0;
  /** Bumped whenever a scenario is (re)loaded and every body handle changes. */
  worldGeneration = 0;
  /** Avatars in join order. */
  readonly avatars: Avatar[] = [];
  private pending: SimInput[] = [];
  private spawnCounter = 0;
  /** Each body's own friction and restitution, for lifting a room-level override. */
  private materials = new Map<string, [number, number]>();
  /** The room-level material overrides (friction / restitution knobs). */
  private overrides: MaterialOverrides = { friction: null, restitution: null };
  /** A player has joined since the scenario was (re)loaded (see join: the scene starts for the first one). */
  private watched = false;
  private readonly sensors = new SensorCounts();

  constructor(scenario: Scenario, options: Partial<SimOptions> = {}) {
    this.options = { ...DEFAULT_SIM_OPTIONS, ...options };
    this.loadScenario(scenario);
  }

  /** Queues an input for the start of the next tick (arrival order is kept). */
  enqueue(input: SimInput): void {
    this.pending.push(input);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Applies the queued inputs, moves the avatars, steps the world. */
  step(): StepResult {
    const applied = this.pending;
    this.pending = [];
    for (const input of applied) this.apply(input);
    for (const avatar of this.avatars) {
      if (this.world.getPosition(avatar.handle, scratch)[1] < AVATAR.respawnBelowY) this.respawn(avatar);
      updateAvatar(this.world, avatar);
    }
    this.world.step();
    if (this.sensors.counts.size > 0 && this.world.eventCount > 0) this.world.forEachEvent(this.sensors.count);
    // The engine removes bodies that leave the bounds or go non-finite; an avatar comes back.
    for (const removed of this.world.removedLastStep) {
      const avatar = this.avatars.find((a) => a.handle === removed.handle);
      if (avatar) this.createAvatarBody(avatar);
    }
    this.tick++;
    return { tick: this.tick, applied, hash: this.world.stateHash() };
  }

  /**
   * An exact copy of the room's state between ticks: a sim restored from it produces the same inputs'
   * effects and the same hash every tick after (replay scrubbing keeps these as checkpoints).
   */
  snapshot(): RoomSimSnapshot {
    return {
      world: this.world.snapshot(),
      scenario: this.scenario,
      tick: this.tick,
      worldGeneration: this.worldGeneration,
      avatars: this.avatars.map((a) => ({ ...a })),
      pending: structuredClone(this.pending),
      spawnCounter: this.spawnCounter,
      materials: [...this.materials].map(([id, m]) => [id, [m[0], m[1]]]),
      overrides: { ...this.overrides },
      watched: this.watched,
      sensors: [...this.sensors.counts],
    };
  }

  /** Puts the room back into a snapshot's state (the snapshot is copied, and can be restored again). */
  restore(snapshot: RoomSimSnapshot): void {
    this.world.restore(snapshot.world);
    this.scenario = snapshot.scenario;
    this.tick = snapshot.tick;
    this.worldGeneration = snapshot.worldGeneration;
    this.avatars.length = 0;
    for (const a of snapshot.avatars) this.avatars.push({ ...a });
    this.pending = structuredClone(snapshot.pending);
    this.spawnCounter = snapshot.spawnCounter;
    this.materials = new Map(snapshot.materials.map(([id, m]) => [id, [m[0], m[1]]]));
    this.overrides = { ...snapshot.overrides };
    this.watched = snapshot.watched;
    this.sensors.restore(snapshot.sensors);
  }

  /**
   * Bodies inside each sensor after the last step, keyed by the sensor's body id: every sensor of the
   * scenario, 0 until something enters it. Read-only; valid until the next step or load.
   */
  sensorCounts(): ReadonlyMap<string, number> {
    return this.sensors.counts;
  }

  avatarOf(session: string): Avatar | undefined {
    return this.avatars.find((a) => a.session === session);
  }

  /** Effective values of the live knobs (the knob table maps each to its engine setting or override). */
  roomSettings(): RoomSettings {
    return roomSettingsOf(this.world.settings, this.overrides);
  }

  // ---------------------------------------------------------------- inputs

  private apply(input: SimInput): void {
    switch (input.type) {
      case "join":
        this.join(input.session);
        return;
      case "leave":
        this.leave(input.session);
        return;
      case "move": {
        const avatar = this.avatarOf(input.session);
        if (!avatar) return;
        const [vx, vz] = clampPlanar(input.vx, input.vz);
        avatar.vx = vx;
        avatar.vz = vz;
        if (input.jump === true) avatar.jumpRequested = true;
        const speed = Math.sqrt(vx * vx + vz * vz);
        if (speed > 1e-6) {
          avatar.facingX = vx / speed;
          avatar.facingZ = vz / speed;
        }
        return;
      }
      case "spawn":
        this.spawn(input);
        return;
      case "impulse":
        this.impulse(input);
        return;
      case "settings":
        this.applySettings(input.patch);
        return;
      case "load":
        this.loadScenario(input.scenario);
        return;
      case "restart":
        this.restart();
        return;
    }
  }

  /**
   * A new player. The first one since the scenario was loaded finds the scene as it was loaded: a world
   * that ran with nobody watching restarts first (failure-lab's bullet hits its wall 25 ms after the
   * load, long before the room's creator has joined it).
   */
  private join(session: string): void {
    if (this.avatarOf(session)) return;
    if (!this.watched && this.world.tick > 0) this.restart();
    this.watched = true;
    const avatar: Avatar = {
      session,
      bodyId: avatarBodyId(session),
      handle: -1,
      vx: 0,
      vz: 0,
      vy: 0,
      jumpRequested: false,
      grounded: false,
      facingX: 1,
      facingZ: 0,
    };
    if (!this.createAvatarBody(avatar)) return;
    this.avatars.push(avatar);
  }

  private createAvatarBody(avatar: Avatar): boolean {
    if (this.world.handleOf(avatar.bodyId) >= 0) return false;
    avatar.handle = this.createBody({
      id: avatar.bodyId,
      type: "kinematic",
      shape: { type: "box", halfExtents: [...AVATAR.halfExtents] },
      position: findSpawnSpot(this.world, this.scenario.spawn),
    });
    avatar.vy = 0;
    avatar.grounded = false;
    return true;
  }

  private respawn(avatar: Avatar): void {
    this.world.removeBody(avatar.handle);
    this.createAvatarBody(avatar);
  }

  private leave(session: string): void {
    const i = this.avatars.findIndex((a) => a.session === session);
    if (i < 0) return;
    this.world.removeBody(this.avatars[i].handle);
    this.materials.delete(this.avatars[i].bodyId);
    this.avatars.splice(i, 1);
  }

  private spawn(input: Extract<SimInput, { type: "spawn" }>): void {
    const avatar = this.avatarOf(input.session);
    if (!avatar || this.world.bodyCount >= this.options.maxBodies) return;
    let id: string;
    do id = `s${++this.spawnCounter}`;
    while (this.world.handleOf(id) >= 0);
    const p = this.world.getPosition(avatar.handle);
    const reach = AVATAR.halfExtents[0] + input.size + SPAWN_GAP;
    const size = input.size;
    this.createBody({
      id,
      type: "dynamic",
      shape: input.shape === "sphere" ? { type: "sphere", radius: size } : { type: "box", halfExtents: [size, size, size] },
      position: [p[0] + avatar.facingX * reach, p[1] + SPAWN_LIFT, p[2] + avatar.facingZ * reach],
      linearVelocity: input.velocity ? [...input.velocity] : undefined,
      density: BODY_DEFAULTS.density,
    });
  }

  private impulse(input: Extract<SimInput, { type: "impulse" }>): void {
    const handle = this.world.handleOf(input.bodyId);
    if (handle < 0 || this.world.getType(handle) !== "dynamic") return;
    if (input.point && !pointNearBody(this.world, handle, input.point)) return;
    this.world.applyImpulse(handle, input.impulse, input.point);
  }

  // ---------------------------------------------------------------- world

  /** Creates a body with the room's material override applied; remembers its own material. */
  private createBody(def: BodyDef): number {
    this.materials.set(def.id, [def.friction ?? BODY_DEFAULTS.friction, def.restitution ?? BODY_DEFAULTS.restitution]);
    const withOverride: BodyDef = { ...def };
    if (this.overrides.friction !== null) withOverride.friction = this.overrides.friction;
    if (this.overrides.restitution !== null) withOverride.restitution = this.overrides.restitution;
    if (withOverride.linearVelocity === undefined) delete withOverride.linearVelocity;
    return this.world.createBody(withOverride);
  }

  /**
   * Reloads the current scenario (a player's restart, or the first join): the bodies as the scenario
   * has them, every avatar at a fresh spawn spot, and the room's knobs as they were (so a knob change,
   * CCD off say, can be watched from the start).
   */
  private restart(): void {
    const settings = this.roomSettings();
    this.loadScenario(this.scenario);
    // Untouched knobs leave a restart exactly a load (applying equal settings would still wake bodies).
    if (JSON.stringify(settings) !== JSON.stringify(this.roomSettings())) this.applySettings(settings);
  }

  /**
   * (Re)builds the world from a scenario: engine settings come from the scenario alone (room overrides
   * are dropped), and every current player gets a fresh avatar in join order.
   */
  private loadScenario(scenario: Scenario): void {
    this.scenario = scenario;
    this.world = new World(scenario.world ?? {});
    this.worldGeneration++;
    this.materials.clear();
    this.overrides = { friction: null, restitution: null };
    this.watched = this.avatars.length > 0;
    this.sensors.reset(scenario);
    for (const def of scenario.bodies) this.createBody(def);
    for (const avatar of this.avatars) this.createAvatarBody(avatar);
  }

  /** A knob change: engine settings through the knob table's mapping, then the material overrides. */
  private applySettings(patch: RoomSettingsPatch): void {
    this.world.updateSettings(worldPatchOf(patch));
    const materials = materialPatchOf(patch);
    for (const key of Object.keys(materials) as MaterialKey[]) this.overrides[key] = materials[key] ?? null;
    if (Object.keys(materials).length > 0) this.applyMaterials();
  }

  /**
   * Sets the effective friction/restitution of every body (the engine reads them when it prepares
   * contacts each step), then wakes everything so resting bodies feel the change.
   */
  private applyMaterials(): void {
    const world = this.world;
    for (const h of world.handles()) {
      const own = this.materials.get(world.idOf(h)!) ?? [BODY_DEFAULTS.friction, BODY_DEFAULTS.restitution];
      world.setFriction(h, this.overrides.friction ?? own[0]);
      world.setRestitution(h, this.overrides.restitution ?? own[1]);
    }
    world.wakeAll();
  }
}

/** An impulse's point must lie within the body's bounding radius plus this, metres. */
export const IMPULSE_POINT_SLACK = 0.5;

/** True if `point` lies within the body's bounding radius plus the message slack. */
export function pointNearBody(world: World, handle: number, point: readonly number[]): boolean {
  if (!world.has(handle)) return false;
  const p = world.getPosition(handle, nearScratch);
  const dx = point[0] - p[0];
  const dy = point[1] - p[1];
  const dz = point[2] - p[2];
  const r = world.getBoundingRadius(handle) + IMPULSE_POINT_SLACK;
  return dx * dx + dy * dy + dz * dz <= r * r;
}

const nearScratch: Vec3Tuple = [0, 0, 0];

