import {
  dequantizeAxis,
  dequantizeRotation,
  fineOf,
  coarseOf,
  kindOf,
  type PackedRotation,
  quantizeMm,
  quantizeRotation,
} from "../../shared/net/index.ts";
import { createPrng } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import type { SnapshotBuffer } from "../../client/src/net/snapshot-buffer.ts";

/**
 * Recorded snapshot streams for the client tests: a RoomSim is run and, every `patchEvery` ticks, every
 * body is quantized and dequantized exactly as the server's StateSync and the client's decoder do
 * (1 mm positions, smallest-three rotations). Arrival times model the network: a base latency plus
 * seeded jitter, optional lost patches (a patch the server never sent, e.g. a stalled tick: the next one
 * simply covers a longer span) and a stall (nothing arrives for a while).
 */
export interface RecordedBody {
  id: string;
  kind: number;
  hx: number;
  hy: number;
  hz: number;
  x: number;
  y: number;
  z: number;
  q: number[];
  sleeping: boolean;
}

export interface RecordedSnapshot {
  tick: number;
  /** Server time of the tick, ms. */
  time: number;
  /** Client arrival time, ms. */
  arrival: number;
  bodies: RecordedBody[];
}

export interface NetworkModel {
  latencyMs: number;
  /** Uniform extra delay in [0, jitterMs]. */
  jitterMs: number;
  /** Indices of patches that are never delivered. */
  lost?: number[];
  /** Patches from `stallFrom` on arrive no earlier than `stallUntilMs` (head-of-line blocking). */
  stallFrom?: number;
  stallUntilMs?: number;
  /** Patches from `endAfter` on are never delivered (the stream stops). */
  endAfter?: number;
  seed?: number;
}

export function recordStream(
  scenario: Scenario,
  ticks: number,
  patchEvery: number,
  net: NetworkModel,
  beforeTick?: (tick: number, sim: RoomSim) => void,
): RecordedSnapshot[] {
  const sim = new RoomSim(scenario);
  const tickMs = 1000 / sim.world.settings.tickRate;
  const prng = createPrng(net.seed ?? 1);
  const packed: PackedRotation = { hi: 0, lo: 0 };
  const out: RecordedSnapshot[] = [];
  let lastArrival = Number.NEGATIVE_INFINITY;
  let index = 0;
  for (let t = 1; t <= ticks; t++) {
    beforeTick?.(t, sim);
    sim.step();
    if (t % patchEvery !== 0) continue;
    const i = index++;
    if (net.lost?.includes(i)) continue;
    if (net.endAfter !== undefined && i >= net.endAfter) continue;
    const w = sim.world;
    const b = w.view();
    const bodies: RecordedBody[] = [];
    for (let s = 0; s < b.slotCount; s++) {
      if (!b.alive[s]) continue;
      const mm = [quantizeMm(b.pos[s * 3]), quantizeMm(b.pos[s * 3 + 1]), quantizeMm(b.pos[s * 3 + 2])];
      quantizeRotation(b.rot[s * 4], b.rot[s * 4 + 1], b.rot[s * 4 + 2], b.rot[s * 4 + 3], packed);
      const q = [0, 0, 0, 1];
      dequantizeRotation(packed.hi, packed.lo, q);
      bodies.push({
        id: b.idOf(s)!,
        kind: kindOf(b.type[s], b.shape[s]),
        hx: b.half[s * 3],
        hy: b.half[s * 3 + 1],
        hz: b.half[s * 3 + 2],
        x: dequantizeAxis(coarseOf(mm[0]), fineOf(mm[0])),
        y: dequantizeAxis(coarseOf(mm[1]), fineOf(mm[1])),
        z: dequantizeAxis(coarseOf(mm[2]), fineOf(mm[2])),
        q,
        sleeping: b.sleeping[s] === 1,
      });
    }
    const time = t * tickMs;
    let arrival = time + net.latencyMs + prng.range(0, net.jitterMs);
    if (net.stallFrom !== undefined && i >= net.stallFrom && net.stallUntilMs !== undefined) arrival = Math.max(arrival, net.stallUntilMs);
    // One ordered stream (TCP): a packet never overtakes the previous one.
    arrival = Math.max(arrival, lastArrival);
    lastArrival = arrival;
    out.push({ tick: t, time, arrival, bodies });
  }
  return out;
}

/** Pushes one recorded snapshot into a buffer (what the client does on each decoded patch). */
export function feed(buffer: SnapshotBuffer, snap: RecordedSnapshot): void {
  buffer.begin(snap.time);
  for (const b of snap.bodies) buffer.push(b.id, b.kind, b.hx, b.hy, b.hz, b.x, b.y, b.z, b.q[0], b.q[1], b.q[2], b.q[3], b.sleeping);
  buffer.end();
}
