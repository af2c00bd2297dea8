import { getBuiltinScenario, type Scenario } from "../../../shared/scenarios/index.ts";

/**
 * The collision-response demo (with warm starting off, "drop a stack at 8 solver iterations and it dies;
 * drop it at 1 and it slumps and twitches forever"), as a scenario the knobs panel loads through
 * POST /rooms/:id/scenario.
 *
 * Why five boxes and not stack10: measured with the engine (test/client/demo.test.ts and the numbers in
 * client/README.md), with warm starting off even 8 iterations cannot hold ten boxes (the soft solver's
 * column drifts 1.3 m sideways in 20 s, projection collapses it), while five dropped boxes stand still
 * at 8 iterations and collapse within seconds at 1. Sleeping is off so that neither the standing stack
 * nor the collapsed pile is frozen by the sleep shortcut (sleeping, like warm starting, is one of the
 * production fixes that would hide the effect): what the kinetic-energy plot shows is the solver alone.
 */
export const DEMO_STACK_HEIGHT = 5;
/** Gap between the dropped boxes, metres. */
export const DEMO_DROP_GAP = 0.05;

export function seed001Stack(velocityIterations: number): Scenario {
  const base = getBuiltinScenario("stack10")!;
  const ground = base.bodies[0];
  const boxes = base.bodies.slice(1, 1 + DEMO_STACK_HEIGHT).map((b, i) => ({
    ...b,
    position: [0, 0.5 + DEMO_DROP_GAP + i * (1 + DEMO_DROP_GAP), 0] as [number, number, number],
  }));
  return {
    name: "seed001-stack",
    description: `Stack demo: ${DEMO_STACK_HEIGHT} unit boxes dropped ${DEMO_DROP_GAP * 100} cm apart, warm starting and sleeping off, ${velocityIterations} velocity iteration(s).`,
    world: { warmStarting: false, sleep: false, velocityIterations, positionCorrection: { method: "soft" } },
    bodies: [ground, ...boxes],
    // stack10's view and spawn point frame this shorter stack too, with the avatar beside it, not behind.
    camera: base.camera,
    spawn: base.spawn,
  };
}
