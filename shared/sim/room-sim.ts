import { BODY_DEFAULTS, type BodyDef, type ContactEvent, type Vec3Tuple, World, type WorldSnapshot } from "../engine/index.ts";
import { avatarShapeDef, type GameDefinition } from "../game/define.ts";
import type { AvatarInfo, Player } from "../game/context.ts";
import { type GameHost, GameRuntime, type GameRuntimeSnapshot, type HookError } from "../game/runtime.ts";
import { sandbox } from "../game/sandbox.ts";
import { type MaterialKey, type MaterialOverrides, materialPatchOf, type RoomSettings, type RoomSettingsPatch, roomSettingsOf, worldPatchOf } from "../net/knobs.ts";
import type { Scenario } from "../scenarios/index.ts";
import { AVATAR, type Avatar, avatarBodyId, clampPlanar, findSpawnSpot, updateAvatar } from "./avatar.ts";
import type { SimInput } from "./inputs.ts";

/**
 * Version of the room simulation rules (avatar controller, spawn placement, input semantics). Replays
 * record it next to ENGINE_VERSION; bump it whenever a change here alters results.
 */
export const SIM_VERSION = "3";

export interface SimOptions {
  /** Games' createBody refuses once the world holds this many bodies (avatars always get in). */
  maxBodies: number;
  /** Seed of the room's random generator (ctx.random); the server picks one per room and records it. */
  seed: number;
}

export const DEFAULT_SIM_OPTIONS: Readonly<SimOptions> = Object.freeze({ maxBodies: 5000, seed: 1 });

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
  /** The game's players, fields, random state and hook failure count. */
  game: GameRuntimeSnapshot;
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
  /** world.stateHash() after the step, then `:` and the game fields' hash when the game has fields. */
  hash: string;
  /** Hooks that threw during this tick (the room logs them; the tick went on without what they did not do). */
  hookErrors: readonly HookError[];
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
export class RoomSim implements GameHost {
  world!: World;
  scenario!: Scenario;
  readonly options: SimOptions;
  /** The game the room plays (sandbox unless the room was created with another). */
  readonly game: GameDefinition;
  /** The game's players, fields and hooks. */
  readonly runtime: GameRuntime;
  /** Ticks since the room started (continues across scenario loads; the world's own tick restarts). */
  tick = 0;
  /** Bumped whenever a scenario is (re)loaded and every body handle changes. */
  worldGeneration = 0;
  /** Avatars in join order (none in a game without avatars). */
  readonly avatars: Avatar[] = [];
  private pending: SimInput[] = [];
  /** Each body's own friction and restitution, for lifting a room-level override. */
  private materials = new Map<string, [number, number]>();
  /** The room-level material overrides (friction / restitution knobs). */
  private overrides: MaterialOverrides = { friction: null, restitution: null };
  /** A player has joined since the scenario was (re)loaded (see join: the scene starts for the first one). */
  private watched = false;
  private readonly sensors = new SensorCounts();
  /** The step's events, copied for the game's event hooks (a hook may change the world while they are read). */
  private readonly events: ContactEvent[] = [];
  private readonly collectEvent = (e: ContactEvent): void => {
    this.events.push(e);
  };
  private readonly wantsEvents: boolean;

  constructor(scenario: Scenario, options: Partial<SimOptions> = {}, game: GameDefinition = sandbox) {
    // Field by field: an option given as undefined keeps its default.
    this.options = { maxBodies: options.maxBodies ?? DEFAULT_SIM_OPTIONS.maxBodies, seed: options.seed ?? DEFAULT_SIM_OPTIONS.seed };
    this.game = game;
    this.runtime = new GameRuntime(game, this, this.options.seed);
    this.wantsEvents = game.onContact !== undefined || game.onSensor !== undefined || game.onJointBreak !== undefined;
    this.loadScenario(scenario);
  }

  get maxBodies(): number {
    return this.options.maxBodies;
  }

  /** The game's players in join order. */
  get players(): readonly Player[] {
    return this.runtime.players;
  }

  /** Queues an input for the start of the next tick (arrival order is kept). */
  enqueue(input: SimInput): void {
    this.pending.push(input);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /**
   * Applies the queued inputs (the game's onInput for the game's own), moves the avatars, steps the
   * world, hands the step's events to the game's event hooks, then runs its onTick.
   */
  step(): StepResult {
    const applied = this.pending;
    this.pending = [];
    this.tick++;
    for (const input of applied) this.apply(input);
    const spec = this.game.avatar;
    if (spec !== null) {
      for (const avatar of this.avatars) {
        if (this.world.getPosition(avatar.handle, scratch)[1] < AVATAR.respawnBelowY) this.respawnAvatar(avatar);
        updateAvatar(this.world, avatar, spec);
      }
    }
    this.world.step();
    if (this.sensors.counts.size > 0 && this.world.eventCount > 0) this.world.forEachEvent(this.sensors.count);
    // The engine removes bodies that leave the bounds or go non-finite; an avatar comes back.
    for (const removed of this.world.removedLastStep) {
      const avatar = this.avatars.find((a) => a.handle === removed.handle);
      if (avatar) this.createAvatarBody(avatar);
    }
    if (this.wantsEvents && this.world.eventCount > 0) this.dispatchEvents();
    this.runtime.call("onTick");
    const hash = this.runtime.hashesFields ? `${this.world.stateHash()}:${this.runtime.fieldsHash()}` : this.world.stateHash();
    return { tick: this.tick, applied, hash, hookErrors: this.runtime.takeErrors() };
  }

  private dispatchEvents(): void {
    const events = this.events;
    events.length = 0;
    this.world.forEachEvent(this.collectEvent);
    for (const e of events) {
      if (e.type === "sensorEnter" || e.type === "sensorExit") this.runtime.call("onSensor", e);
      else if (e.type === "jointBreak") this.runtime.call("onJointBreak", e);
      else this.runtime.call("onContact", e);
    }
    events.length = 0;
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
      game: this.runtime.snapshot(),
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
    this.runtime.restore(snapshot.game);
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
      case "move":
        this.move(input);
        return;
      case "input": {
        const player = this.runtime.players.find((p) => p.session === input.session);
        if (player && this.game.inputs[input.name] !== undefined) this.runtime.call("onInput", player, input.name, input.message);
        return;
      }
      case "settings":
        this.applySettings(input.patch);
        return;
      case "load":
        this.loadScenario(input.scenario);
        return;
    }
  }

  private move(input: Extract<SimInput, { type: "move" }>): void {
    const avatar = this.avatarOf(input.session);
    const spec = this.game.avatar;
    if (!avatar || spec === null) return;
    const [vx, vz] = clampPlanar(input.vx, input.vz, spec.maxSpeed);
    avatar.vx = vx;
    avatar.vz = vz;
    if (input.jump === true) avatar.jumpRequested = true;
    const speed = Math.sqrt(vx * vx + vz * vz);
    if (speed > 1e-6) {
      avatar.facingX = vx / speed;
      avatar.facingZ = vz / speed;
    }
  }

  /**
   * A new player. The first one since the scenario was loaded finds the scene as it was loaded: a world
   * that ran with nobody watching restarts first (failure-lab's bullet hits its wall 25 ms after the
   * load, long before the room's creator has joined it).
   */
  private join(session: string): void {
    if (this.runtime.players.some((p) => p.session === session)) return;
    if (!this.watched && this.world.tick > 0) this.restart();
    this.watched = true;
    const withAvatar = this.game.avatar !== null;
    if (withAvatar) {
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
    const player = this.runtime.addPlayer(session, withAvatar ? avatarBodyId(session) : "");
    this.runtime.call("onJoin", player);
  }

  private createAvatarBody(avatar: Avatar, position?: Vec3Tuple): boolean {
    const spec = this.game.avatar;
    if (spec === null || this.world.handleOf(avatar.bodyId) >= 0) return false;
    avatar.handle = this.addBody({
      id: avatar.bodyId,
      type: "kinematic",
      shape: avatarShapeDef(spec),
      position: position ?? findSpawnSpot(this.world, this.scenario.spawn, spec.halfExtents),
    });
    avatar.vy = 0;
    avatar.grounded = false;
    return true;
  }

  private respawnAvatar(avatar: Avatar, position?: Vec3Tuple): void {
    this.world.removeBody(avatar.handle);
    this.createAvatarBody(avatar, position);
  }

  private leave(session: string): void {
    const player = this.runtime.players.find((p) => p.session === session);
    if (player) this.runtime.call("onLeave", player);
    this.runtime.removePlayer(session);
    const i = this.avatars.findIndex((a) => a.session === session);
    if (i < 0) return;
    this.world.removeBody(this.avatars[i].handle);
    this.materials.delete(this.avatars[i].bodyId);
    this.avatars.splice(i, 1);
  }

  // ---------------------------------------------------------------- the game's host (GameHost)

  /** A game's body: created as addBody does, or -1 (nothing created) once the world holds maxBodies bodies. */
  createBody(def: BodyDef): number {
    return this.world.bodyCount >= this.options.maxBodies ? -1 : this.addBody(def);
  }

  /** Creates a body with the room's material override applied; remembers its own material. */
  private addBody(def: BodyDef): number {
    this.materials.set(def.id, [def.friction ?? BODY_DEFAULTS.friction, def.restitution ?? BODY_DEFAULTS.restitution]);
    const withOverride: BodyDef = { ...def };
    if (this.overrides.friction !== null) withOverride.friction = this.overrides.friction;
    if (this.overrides.restitution !== null) withOverride.restitution = this.overrides.restitution;
    if (withOverride.linearVelocity === undefined) delete withOverride.linearVelocity;
    return this.world.createBody(withOverride);
  }

  avatarInfo(session: string): AvatarInfo | null {
    const a = this.avatarOf(session);
    return a ? { handle: a.handle, facing: [a.facingX, a.facingZ], grounded: a.grounded } : null;
  }

  respawn(session: string, position?: Vec3Tuple): void {
    const a = this.avatarOf(session);
    if (a) this.respawnAvatar(a, position);
  }

  /**
   * Reloads the current scenario (a player's restart, or the first join): the bodies as the scenario
   * has them, every avatar at a fresh spawn spot, and the room's knobs as they were (so a knob change,
   * CCD off say, can be watched from the start).
   */
  restart(): void {
    const settings = this.roomSettings();
    this.loadScenario(this.scenario);
    // Untouched knobs leave a restart exactly a load (applying equal settings would still wake bodies).
    if (JSON.stringify(settings) !== JSON.stringify(this.roomSettings())) this.applySettings(settings);
  }

  // ---------------------------------------------------------------- world

  /**
   * (Re)builds the world from a scenario: engine settings come from the scenario alone (room overrides
   * are dropped), every current player gets a fresh avatar in join order, and the game's setup runs.
   */
  private loadScenario(scenario: Scenario): void {
    this.scenario = scenario;
    this.world = new World(scenario.world ?? {});
    this.worldGeneration++;
    this.materials.clear();
    this.overrides = { friction: null, restitution: null };
    this.watched = this.avatars.length > 0 || this.runtime.players.length > 0;
    this.sensors.reset(scenario);
    for (const def of scenario.bodies) this.addBody(def);
    for (const def of scenario.joints ?? []) this.world.createJoint(def);
    for (const avatar of this.avatars) this.createAvatarBody(avatar);
    this.runtime.call("setup");
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
