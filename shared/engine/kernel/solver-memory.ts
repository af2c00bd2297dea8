import { CS, SD, SM, SV } from "../dynamics/constraint-layout.ts";
import { type ContactKernel, instantiateContactKernel } from "./contact-kernel.ts";

const PAGE = 65536;
/** The first page is left to the kernel's own use (its stub runtime keeps nothing there today). */
const BASE = PAGE;
/** Regions start on cache-line boundaries. */
const ALIGN = 64;

function align(n: number): number {
  return Math.ceil(n / ALIGN) * ALIGN;
}

/**
 * The solver's per-step arrays, laid out in one WebAssembly memory so the contact kernel reads them in
 * place: the constraints (constraint-layout.ts, stride CS), their body indices (4 ints each), the solver
 * bodies' velocities (SV), motion (SD) and masses (SM), and the order the passes visit the constraints in
 * (kernel/assembly/schedule.ts). The JavaScript passes see the same bytes through typed-array views.
 * Growing (never in steady state) re-lays the regions out and copies what they held; views taken before
 * an `ensure` are then stale, so every pass reads them from here when it starts.
 *
 * The arrays are one step's scratch (loaded when the solve starts, written back when it ends), and a step
 * runs to completion without calling out, so every world of a thread shares one (`sharedSolverMemory`):
 * a fresh WebAssembly memory costs a fraction of a millisecond on first touch, which a server making
 * rooms, or a test making thousands of worlds, would pay per world.
 */
export class SolverMemory {
  readonly memory: WebAssembly.Memory;
  readonly kernel: ContactKernel;
  /** The pass's scalars: h, maxPushVelocity, slop (written by ContactSolver.solve). */
  params = new Float64Array(0);
  cs = new Float64Array(0);
  ints = new Int32Array(0);
  vel = new Float64Array(0);
  delta = new Float64Array(0);
  mass = new Float64Array(0);
  paramsPtr = BASE;
  csPtr = 0;
  intsPtr = 0;
  velPtr = 0;
  deltaPtr = 0;
  massPtr = 0;
  /** The contact passes' order (kernel/assembly/schedule.ts): two ints per slot. */
  schedPtr = 0;
  /** The schedule's scratch: a byte per constraint. */
  takenPtr = 0;
  private constraintCap = 0;
  private bodyCap = 0;

  constructor(constraints = 64, bodies = 64) {
    this.memory = new WebAssembly.Memory({ initial: 2 });
    this.kernel = instantiateContactKernel(this.memory);
    this.layout(constraints, bodies);
  }

  /** Room for n constraints; keeps every region's contents. */
  ensureConstraints(n: number): void {
    if (n <= this.constraintCap) return;
    let cap = Math.max(this.constraintCap, 1);
    while (cap < n) cap *= 2;
    this.layout(cap, this.bodyCap);
  }

  /** Room for n solver bodies; keeps every region's contents. */
  ensureBodies(n: number): void {
    if (n <= this.bodyCap) return;
    let cap = Math.max(this.bodyCap, 1);
    while (cap < n) cap *= 2;
    this.layout(this.constraintCap, cap);
  }

  private layout(constraintCap: number, bodyCap: number): void {
    const old = [this.cs.slice(), this.ints.slice(), this.vel.slice(), this.delta.slice(), this.mass.slice()] as const;
    this.csPtr = BASE + ALIGN;
    this.intsPtr = align(this.csPtr + constraintCap * CS * 8);
    this.velPtr = align(this.intsPtr + constraintCap * 4 * 4);
    this.deltaPtr = align(this.velPtr + bodyCap * SV * 8);
    this.massPtr = align(this.deltaPtr + bodyCap * SD * 8);
    this.schedPtr = align(this.massPtr + bodyCap * SM * 8);
    this.takenPtr = align(this.schedPtr + constraintCap * 2 * 4);
    const end = this.takenPtr + constraintCap;
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE));
    const buffer = this.memory.buffer;
    this.params = new Float64Array(buffer, this.paramsPtr, ALIGN / 8);
    this.cs = new Float64Array(buffer, this.csPtr, constraintCap * CS);
    this.ints = new Int32Array(buffer, this.intsPtr, constraintCap * 4);
    this.vel = new Float64Array(buffer, this.velPtr, bodyCap * SV);
    this.delta = new Float64Array(buffer, this.deltaPtr, bodyCap * SD);
    this.mass = new Float64Array(buffer, this.massPtr, bodyCap * SM);
    // The regions may overlap their old places, so the contents come from the copies taken above.
    refill(this.cs, old[0]);
    refill(this.ints, old[1]);
    refill(this.vel, old[2]);
    refill(this.delta, old[3]);
    refill(this.mass, old[4]);
    this.constraintCap = constraintCap;
    this.bodyCap = bodyCap;
  }
}

/** Copies what `from` held into the start of `to` (as much as fits). */
function refill<T extends Float64Array | Int32Array>(to: T, from: T): void {
  to.set(from.subarray(0, Math.min(from.length, to.length)));
}

let shared: SolverMemory | null = null;

/** The thread's solver memory, created on first use and grown to the largest step it has served. */
export function sharedSolverMemory(): SolverMemory {
  if (shared === null) shared = new SolverMemory();
  return shared;
}
