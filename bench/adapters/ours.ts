import { BodyTypeCode, type World } from "../../shared/engine/index.ts";
import type { Scenario } from "../../shared/scenarios/format.ts";
import { loadScenario } from "../../shared/scenarios/index.ts";
import type { BenchEngine } from "./types.ts";

/**
 * Our engine at its defaults (shared/engine/config.ts): the scenario's own world settings, with only
 * `sleep` overridden by the case. The same defaults pass the stacking checks in test/engine.
 */
export class OurEngine implements BenchEngine {
  name = "ours";
  private world: World | null = null;

  load(scenario: Scenario, opts: { sleep: boolean }): void {
    this.world = loadScenario(scenario, { sleep: opts.sleep }).world;
  }

  step(): void {
    this.world!.step();
  }

  private handle(id: string): number {
    const h = this.world!.handleOf(id);
    if (h < 0) throw new Error(`no body "${id}"`);
    return h;
  }

  position(id: string): [number, number, number] {
    return this.world!.getPosition(this.handle(id));
  }

  rotation(id: string): [number, number, number, number] {
    return this.world!.getRotation(this.handle(id));
  }

  sleepingCount(): number {
    return this.dynamicCount() - this.world!.awakeBodyCount;
  }

  dynamicCount(): number {
    const b = this.world!.view();
    let n = 0;
    for (let s = 0; s < b.slotCount; s++) if (b.alive[s] && b.type[s] === BodyTypeCode.DYNAMIC) n++;
    return n;
  }

  dispose(): void {
    this.world = null;
  }
}
