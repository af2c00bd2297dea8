import { CONTACT_KERNEL_WASM } from "./contact-kernel.wasm.ts";

/** The kernel's export (assembly/contact-solve.ts): addresses are byte offsets into its memory. */
export interface ContactKernel {
  solve(
    paramsPtr: number,
    csPtr: number,
    intsPtr: number,
    velPtr: number,
    deltaPtr: number,
    massPtr: number,
    schedPtr: number,
    slots: number,
    useBias: boolean,
    fresh: boolean,
  ): void;
  /** Completes `count` constraints from the inputs prepareContacts staged (assembly/contact-prepare.ts). */
  prepare(csPtr: number, intsPtr: number, velPtr: number, massPtr: number, count: number, warm: boolean): void;
  /** Orders `count` constraints into slots of one or two for `solve` (assembly/schedule.ts); returns how many. */
  schedule(intsPtr: number, massPtr: number, count: number, schedPtr: number, takenPtr: number): number;
  warmStart(csPtr: number, intsPtr: number, velPtr: number, massPtr: number, count: number): void;
}

let compiled: WebAssembly.Module | null = null;

/**
 * The compiled module, once per process (or page). Compiled synchronously: it is a few kilobytes, far
 * below what browsers allow on the main thread, and a World must be usable as soon as it is constructed.
 */
function kernelModule(): WebAssembly.Module {
  if (compiled === null) {
    const text = atob(CONTACT_KERNEL_WASM);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    compiled = new WebAssembly.Module(bytes);
  }
  return compiled;
}

/** An instance of the kernel working in `memory` (one per world: each owns its solver memory). */
export function instantiateContactKernel(memory: WebAssembly.Memory): ContactKernel {
  const instance = new WebAssembly.Instance(kernelModule(), { env: { memory } });
  return instance.exports as unknown as ContactKernel;
}
