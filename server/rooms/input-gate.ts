import type { HookError } from "../../shared/game/runtime.ts";
import { formatZodIssues } from "../../shared/net/index.ts";
import type { RoomSim } from "../../shared/sim/index.ts";

/** What the gate reads of its room besides the simulation: the room's limits and CPU budget. */
export interface GateLimits {
  maxSpawnsPerSecond: number;
  maxBodies: number;
  /** Why inputs that add bodies are paused (the room is at its CPU budget), or null. */
  pausedFor(): string | null;
}

/**
 * The boundary of a room's game inputs. A message is checked, in order, against the input's schema (the
 * field's path in the reason), its rate limits (its own per player and second, the room's spawn rate and
 * body limit for inputs that add bodies, the room-wide interval), the CPU budget, and the game's own
 * `check` against the room as it is now; it is queued for the next tick only if all pass. Rate windows
 * count simulation ticks, so a slowed room slows its allowances with it.
 */
export class InputGate {
  /** Recent accepted body-adding inputs per session (a sliding one-second window). */
  private readonly spawnTicks = new Map<string, number[]>();
  /** Body-adding inputs queued for the next tick (the body limit counts them). */
  private queuedSpawns = 0;
  /** Recent accepted ticks per `session input` of inputs with their own perSecond. */
  private readonly inputTicks = new Map<string, number[]>();
  /** Tick of the last accepted input of each name with a roomInterval (one allowance for the room). */
  private readonly lastRoomInputTick = new Map<string, number>();

  private readonly sim: RoomSim;
  private readonly limits: GateLimits;
  /** A game's `check` that threw: reported like a hook's error. */
  private readonly onCheckError: (error: HookError) => void;

  constructor(sim: RoomSim, limits: GateLimits, onCheckError: (error: HookError) => void) {
    this.sim = sim;
    this.limits = limits;
    this.onCheckError = onCheckError;
  }

  /** A tick was stepped: the queued inputs were applied. */
  stepped(): void {
    this.queuedSpawns = 0;
  }

  /** A player left: their windows go. */
  forget(session: string): void {
    this.spawnTicks.delete(session);
    for (const key of [...this.inputTicks.keys()]) if (key.startsWith(`${session} `)) this.inputTicks.delete(key);
  }

  /** Validates and queues one of the game's inputs from `session`; answers why it was rejected, or null. */
  admit(session: string, name: string, payload: unknown): string | null {
    const sim = this.sim;
    const def = sim.game.inputs[name];
    const parsed = def.schema.safeParse(payload);
    if (!parsed.success) return formatZodIssues(parsed.error.issues);
    const second = sim.world.settings.tickRate;
    const tick = sim.tick;
    let window: number[] | null = null;
    if (def.perSecond !== undefined) {
      window = slide(this.inputTicks, `${session} ${name}`, tick - second);
      if (window.length >= def.perSecond) return `${name} rate limit: at most ${def.perSecond} per second`;
    }
    let spawns: number[] | null = null;
    if (def.addsBodies) {
      const { maxSpawnsPerSecond, maxBodies } = this.limits;
      spawns = slide(this.spawnTicks, session, tick - second);
      if (spawns.length >= maxSpawnsPerSecond) return `${name} rate limit: at most ${maxSpawnsPerSecond} per second`;
      if (sim.world.bodyCount + this.queuedSpawns >= maxBodies) return `body limit reached: the room holds at most ${maxBodies} bodies`;
      const paused = this.limits.pausedFor();
      if (paused !== null) return `${paused}: ${name} is paused`;
    }
    if (def.roomInterval !== undefined) {
      const last = this.lastRoomInputTick.get(name) ?? Number.NEGATIVE_INFINITY;
      if (tick - last < def.roomInterval * second) return `${name} rate limit: at most one ${name} per room every ${def.roomInterval} s`;
    }
    // A player whose join is still queued has nothing to check against yet; onInput checks again anyway.
    const player = sim.players.find((p) => p.session === session);
    if (def.check !== undefined && player !== undefined) {
      let verdict: string | null;
      try {
        verdict = def.check(sim.runtime.ctx, player, parsed.data);
      } catch (err) {
        this.onCheckError({ hook: "onInput", tick, message: `inputs.${name}.check threw: ${(err as Error).message}` });
        return `${name}: the game could not check it`;
      }
      if (verdict !== null) return String(verdict).slice(0, 200);
    }
    window?.push(tick);
    if (spawns !== null) {
      spawns.push(tick);
      this.queuedSpawns++;
    }
    if (def.roomInterval !== undefined) this.lastRoomInputTick.set(name, tick);
    sim.enqueue({ type: "input", session, name, message: parsed.data });
    return null;
  }
}

/** The ticks of `map`'s window for `key` after `since` (older ones dropped), created when missing. */
function slide(map: Map<string, number[]>, key: string, since: number): number[] {
  let window = map.get(key);
  if (window === undefined) {
    window = [];
    map.set(key, window);
  }
  while (window.length > 0 && window[0] <= since) window.shift();
  return window;
}
