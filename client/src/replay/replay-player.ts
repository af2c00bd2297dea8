import type { GameDefinition } from "../../../shared/game/define.ts";
import { GameRegistry } from "../../../shared/game/registry.ts";
import { type BodyDifference, type BodyDigest, bodyDigests, diffBodies, RoomSim, type RoomSimSnapshot, type SimInput } from "../../../shared/sim/index.ts";
import type { ReplayData } from "./replay-file.ts";
import type { Divergence as VerifyDivergence } from "../../../server/replay/verify.ts";

/**
 * The viewer's simulation side (DOM-free): re-simulates a replay from its header and inputs with the
 * engine and room simulation the server ran, checks every tick's hash against the recording and every
 * keyframe's per-body hashes, and scrubs.
 *
 * Two RoomSims: the verifier runs once from tick 0 to the end (in slices, between frames) and leaves an
 * exact snapshot every CHECKPOINT_INTERVAL ticks; the cursor is what is shown, and a seek restores the
 * nearest checkpoint at or before the target and steps forward from there (or steps on from where the
 * cursor already is, when that is closer). Snapshots are exact (shared/engine/world/snapshot.ts), so the
 * cursor's state at tick t is the verifier's, bit for bit.
 */
export const CHECKPOINT_INTERVAL = 60;

/** Per-tick verification state. */
export const TICK_UNCHECKED = 0;
export const TICK_MATCH = 1;
export const TICK_MISMATCH = 2;

export interface KeyframeResult {
  tick: number;
  /** Bodies whose hash differs or that exist on one side only. */
  differing: BodyDifference[];
}

export type { BodyDifference };

/** What the command-line verifier reports (server/replay/verify.ts), less the fields only a file on disk has. */
export type Divergence = Omit<VerifyDivergence, "keyframeLine" | "differingBodies">;

/** The games built into this page (the server's built-ins; a GAMES module is not among them). */
let builtinGames: GameRegistry | null = null;

/** A recording of a game this viewer cannot re-simulate: not built in, or another version of it. */
export class ReplayGameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayGameError";
  }
}

/**
 * The game a recording names, from the games built into the viewer, at the recorded version. Throws a
 * ReplayGameError saying what to do instead (the command-line verifier loads GAMES modules).
 */
export function replayGame(recorded: { name: string; version: string; module?: string }): GameDefinition {
  builtinGames ??= new GameRegistry();
  const game = builtinGames.get(recorded.name);
  const verify = `verify it with npm run replay -- verify${recorded.module ? ` (with GAMES=${recorded.module})` : ""}`;
  if (!game) throw new ReplayGameError(`game "${recorded.name}" is not built into this viewer; ${verify}`);
  if (game.version !== recorded.version) {
    throw new ReplayGameError(`game "${recorded.name}" was recorded at version ${recorded.version}, this viewer has version ${game.version}; ${verify}`);
  }
  return game;
}

export class ReplayPlayer {
  readonly data: ReplayData;
  /** Ticks in the recording. */
  readonly ticks: number;
  /** TICK_* per tick, index t - 1. */
  readonly status: Uint8Array;
  readonly keyframeResults: KeyframeResult[] = [];
  divergence: Divergence | null = null;
  /** Last tick the verifier simulated. */
  verifiedTo = 0;
  /** Set when the recording itself cannot be simulated (a body definition the engine refuses…). */
  error: string | null = null;
  private readonly verifier: RoomSim;
  readonly cursor: RoomSim;
  private readonly checkpoints: RoomSimSnapshot[] = [];

  constructor(data: ReplayData) {
    this.data = data;
    this.ticks = data.hashes.length;
    this.status = new Uint8Array(this.ticks);
    const game = replayGame(data.header.game);
    this.verifier = new RoomSim(structuredClone(data.header.scenario), data.header.options, game);
    this.cursor = new RoomSim(structuredClone(data.header.scenario), data.header.options, game);
    this.checkpoints.push(this.verifier.snapshot());
  }

  get verified(): boolean {
    return this.verifiedTo >= this.ticks || this.error !== null;
  }

  get keyframesMatched(): number {
    return this.keyframeResults.filter((k) => k.differing.length === 0).length;
  }

  get checkpointCount(): number {
    return this.checkpoints.length;
  }

  /** Verifies ticks until `budgetMs` has passed (at least one tick). Returns true when done. */
  verifySlice(budgetMs: number): boolean {
    const start = performance.now();
    while (!this.verified) {
      try {
        this.verifyNext();
      } catch (err) {
        this.error = `tick ${this.verifiedTo + 1}: the simulation failed: ${(err as Error).message}`;
      }
      if (performance.now() - start >= budgetMs) break;
    }
    return this.verified;
  }

  private verifyNext(): void {
    const sim = this.verifier;
    const t = sim.tick + 1;
    const hash = stepWith(sim, this.data.inputs[t - 1]);
    const recorded = this.data.hashes[t - 1];
    this.status[t - 1] = hash === recorded ? TICK_MATCH : TICK_MISMATCH;
    if (hash !== recorded && this.divergence === null) {
      this.divergence = {
        tick: t,
        line: this.data.lines[t - 1],
        recordedHash: recorded,
        replayedHash: hash,
        inputs: this.data.inputs[t - 1],
        keyframeTick: null,
        bodies: [],
      };
    }
    const keyframe = this.data.keyframes.get(t);
    if (keyframe) this.checkKeyframe(t, keyframe);
    this.keepCheckpoint(sim);
    this.verifiedTo = t;
  }

  private checkKeyframe(t: number, recorded: BodyDigest[]): void {
    const differing = diffBodies(recorded, bodyDigests(this.verifier.world));
    this.keyframeResults.push({ tick: t, differing });
    // Bodies that differ while every hash agreed mean the world hash missed something: a divergence too.
    if (this.divergence === null && differing.length > 0) {
      this.divergence = { tick: t, line: this.data.lines[t - 1], recordedHash: "", replayedHash: "", inputs: [], keyframeTick: null, bodies: [] };
    }
    if (this.divergence !== null && this.divergence.keyframeTick === null) {
      this.divergence.keyframeTick = t;
      this.divergence.bodies = differing;
    }
  }

  /**
   * Moves the cursor to tick t (clamped to the recording): from where it is when that is on the way,
   * else from the nearest checkpoint at or before t.
   */
  seek(t: number): void {
    // Past a tick the simulation failed on there is nothing to show.
    const last = this.error === null ? this.ticks : this.verifiedTo;
    const target = Math.max(0, Math.min(last, Math.floor(t)));
    const cursor = this.cursor;
    const k = Math.min(Math.floor(target / CHECKPOINT_INTERVAL), this.checkpoints.length - 1);
    const fromCheckpoint = k * CHECKPOINT_INTERVAL;
    if (!(cursor.tick <= target && cursor.tick >= fromCheckpoint)) cursor.restore(this.checkpoints[k]);
    while (cursor.tick < target) {
      stepWith(cursor, this.data.inputs[cursor.tick]);
      this.keepCheckpoint(cursor);
    }
  }

  /**
   * Keeps a snapshot of `sim` when it is on the next checkpoint tick not kept yet: by the verifier, or by
   * the cursor when a seek runs ahead of the verification (both states are the same, bit for bit).
   */
  private keepCheckpoint(sim: RoomSim): void {
    if (sim.tick === this.checkpoints.length * CHECKPOINT_INTERVAL) this.checkpoints.push(sim.snapshot());
  }

  /** The cursor's tick. */
  get tick(): number {
    return this.cursor.tick;
  }

  /** Ids of the bodies the divergence named, when the cursor is at or past it (else empty). */
  divergingBodies(): string[] {
    const d = this.divergence;
    if (d === null || this.cursor.tick < d.tick) return [];
    return d.bodies.map((b) => b.id);
  }
}

/** Queues a tick's recorded inputs (copies: the sim keeps them) and steps; returns the new hash. */
function stepWith(sim: RoomSim, inputs: SimInput[]): string {
  for (const input of inputs) sim.enqueue(structuredClone(input));
  return sim.step().hash;
}

