import { BODY_DEFAULTS } from "../engine/index.ts";
import { ImpulseMessage, LIMITS, RestartMessage, RESTART_INTERVAL_SECONDS, SpawnMessage } from "../net/messages.ts";
import { pointNearBody } from "../sim/impulse.ts";
import { DEFAULT_AVATAR, defineGame } from "./define.ts";

/** Spawned bodies appear this far beyond the avatar's side, and this high above its centre, metres. */
const SPAWN_GAP = 0.2;
const SPAWN_LIFT = 0.5;

/**
 * The built-in rules, written as a game like any other: any scenario, the standard avatar, and three
 * inputs. `spawn` drops a sphere or box in front of the avatar (within the room's spawn rate and body
 * limit), `impulse` pushes a dynamic body, `restart` reloads the scenario for everyone (once per
 * RESTART_INTERVAL_SECONDS in the room). The browser client's click, shift-click and restart button send
 * exactly these.
 */
export const sandbox = defineGame({
  name: "sandbox",
  version: "1",
  description: "Any scenario, one box avatar per player; click to spawn spheres and boxes, shift-click to push bodies, restart the scene.",
  scenario: "arena",
  anyScenario: true,
  inputs: {
    spawn: { schema: SpawnMessage, addsBodies: true, label: "spawn a body" },
    impulse: {
      schema: ImpulseMessage,
      label: "push a body",
      check(ctx, _player, m) {
        const handle = ctx.world.handleOf(m.bodyId);
        if (handle < 0) return `bodyId: no body "${m.bodyId}"`;
        if (ctx.world.getType(handle) !== "dynamic") return `bodyId: body "${m.bodyId}" is not dynamic`;
        if (m.point && !pointNearBody(ctx.world, handle, m.point)) return `point: farther than ${LIMITS.impulsePointSlack} m outside body "${m.bodyId}"`;
        return null;
      },
    },
    restart: { schema: RestartMessage, roomInterval: RESTART_INTERVAL_SECONDS, label: "restart scene" },
  },
  onInput(ctx, player, ...input) {
    const world = ctx.world;
    switch (input[0]) {
      case "spawn": {
        const m = input[1];
        const avatar = ctx.avatar(player);
        if (avatar === null) return;
        const id = ctx.uniqueId("s");
        const p = world.getPosition(avatar.handle);
        const reach = DEFAULT_AVATAR.halfExtents[0] + m.size + SPAWN_GAP;
        ctx.createBody({
          id,
          type: "dynamic",
          shape: m.shape === "sphere" ? { type: "sphere", radius: m.size } : { type: "box", halfExtents: [m.size, m.size, m.size] },
          position: [p[0] + avatar.facing[0] * reach, p[1] + SPAWN_LIFT, p[2] + avatar.facing[1] * reach],
          linearVelocity: m.velocity ? [...m.velocity] : undefined,
          density: BODY_DEFAULTS.density,
        });
        return;
      }
      case "impulse": {
        const m = input[1];
        const handle = world.handleOf(m.bodyId);
        if (handle < 0 || world.getType(handle) !== "dynamic") return;
        if (m.point && !pointNearBody(world, handle, m.point)) return;
        world.applyImpulse(handle, m.impulse, m.point);
        return;
      }
      case "restart":
        ctx.restart();
        return;
    }
  },
});
