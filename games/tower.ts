import { defineGame, type GameContext, type Player, type Scenario, z } from "physics-rooms/game";

/** Boxes are cubes of this size, metres; every player has BUDGET of them. */
const BOX = 0.5;
const BUDGET = 20;
/** A round lasts this long from the first player's join, seconds. */
const ROUND_SECONDS = 120;
/** Boxes count (and may be dropped) inside |x|, |z| <= AREA, metres. */
const AREA = 10;
/** A box counts once this slow (m/s, rad/s), or asleep. */
const REST_SPEED = 0.05;
const REST_SPIN = 0.2;
/** The avatar's half width, and the gap kept between it and a dropped box, metres. */
const AVATAR_HALF_WIDTH = 0.4;
const DROP_GAP = 0.1;
/** A dropped box appears this far above whatever is below it, metres. */
const DROP_LIFT = 0.05;
const CAST_FROM = 100;

const scenario: Scenario = {
  name: "tower-yard",
  description: "Flat ground with a 20 x 20 m build area marked in its middle.",
  world: { bounds: { min: [-200, -50, -200], max: [200, 300, 200] } },
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [50, 0.5, 50] }, position: [0, -0.5, 0], friction: 0.8 },
    // A flat sensor only marks the area (its HUD count: the boxes in it).
    { id: "build-area", type: "static", sensor: true, shape: { type: "box", halfExtents: [AREA, 0.01, AREA] }, position: [0, 0.01, 0] },
  ],
  camera: { position: [0, 10, 18], target: [0, 2, 0] },
  spawn: [0, 1, 4],
};

const state = { best: 0, leader: "", secondsLeft: ROUND_SECONDS, status: "building", winner: "", startTick: 0 };
const playerState = { boxes: BUDGET, height: 0 };
type Ctx = GameContext<typeof state, typeof playerState>;
type TowerPlayer = Player<typeof playerState>;

/** Whose box an id `t-<session>-<n>` is ("" for other bodies). */
function ownerOf(id: string): string {
  return id.startsWith("t-") ? id.slice(2, id.lastIndexOf("-")) : "";
}

function inArea(x: number, z: number): boolean {
  return Math.abs(x) <= AREA && Math.abs(z) <= AREA;
}

/** Why `player` cannot drop a box now, or null. */
function refusal(ctx: Ctx, player: TowerPlayer): string | null {
  if (ctx.state.status !== "building") return "the round is over";
  if (player.state.boxes <= 0) return "no boxes left";
  return null;
}

/** Where the avatar drops its box: in front of it, the box's side clear of the avatar's. */
function dropSpot(ctx: Ctx, player: TowerPlayer): [number, number] | null {
  const avatar = ctx.avatar(player);
  if (avatar === null) return null;
  const [fx, fz] = avatar.facing;
  const reach = (AVATAR_HALF_WIDTH + BOX / 2 + DROP_GAP) / Math.max(Math.abs(fx), Math.abs(fz));
  const p = ctx.world.getPosition(avatar.handle);
  return [p[0] + fx * reach, p[2] + fz * reach];
}

/** Drops one of the player's boxes onto whatever is at (x, z): cast down from high up, it lands on the top. */
function drop(ctx: Ctx, player: TowerPlayer, x: number, zz: number): void {
  if (refusal(ctx, player) !== null || !inArea(x, zz)) return;
  const shape = { type: "box" as const, halfExtents: [BOX / 2, BOX / 2, BOX / 2] as [number, number, number] };
  const hit = ctx.world.castShape(shape, { position: [x, CAST_FROM, zz] }, [0, -1, 0], CAST_FROM + 10);
  const y = hit === null ? BOX / 2 + DROP_LIFT : CAST_FROM - hit.distance + DROP_LIFT;
  const id = ctx.uniqueId(`t-${player.session}-`);
  if (ctx.createBody({ id, type: "dynamic", shape, position: [x, y, zz], density: 200, friction: 0.8 }) < 0) return;
  player.state.boxes--;
}

/** Top of a box (half size h) at rest: its centre's height plus the extent of its rotated half size along y. */
function topOf(ctx: Ctx, handle: number): number {
  const p = ctx.world.getPosition(handle);
  const [x, y, zq, w] = ctx.world.getRotation(handle);
  const h = BOX / 2;
  // Row y of the rotation matrix, from the quaternion.
  const r0 = 2 * (x * y + w * zq);
  const r1 = 1 - 2 * (x * x + zq * zq);
  const r2 = 2 * (y * zq - w * x);
  return p[1] + h * (Math.abs(r0) + Math.abs(r1) + Math.abs(r2));
}

function atRest(ctx: Ctx, handle: number): boolean {
  const world = ctx.world;
  if (world.isSleeping(handle)) return true;
  const [vx, vy, vz] = world.getLinearVelocity(handle);
  const [wx, wy, wz] = world.getAngularVelocity(handle);
  return vx * vx + vy * vy + vz * vz < REST_SPEED * REST_SPEED && wx * wx + wy * wy + wz * wz < REST_SPIN * REST_SPIN;
}

/** Every player's height: the top of their highest box at rest in the build area. */
function measure(ctx: Ctx): void {
  const best = new Map<string, number>();
  ctx.world.queryAabb([-AREA, -1, -AREA], [AREA, Number.POSITIVE_INFINITY, AREA], (h) => {
    const owner = ownerOf(ctx.world.idOf(h) ?? "");
    if (owner === "" || !atRest(ctx, h)) return;
    const p = ctx.world.getPosition(h);
    if (!inArea(p[0], p[2])) return;
    const top = Math.floor(topOf(ctx, h) * 100 + 0.5) / 100;
    if (top > (best.get(owner) ?? 0)) best.set(owner, top);
  });
  ctx.state.best = 0;
  ctx.state.leader = "";
  for (const p of ctx.players) {
    p.state.height = best.get(p.session) ?? 0;
    if (p.state.height > ctx.state.best) {
      ctx.state.best = p.state.height;
      ctx.state.leader = p.session;
    }
  }
}

export default defineGame({
  name: "tower",
  version: "1",
  description: `Build the tallest tower in ${ROUND_SECONDS / 60} minutes: each player drops up to ${BUDGET} boxes; only boxes at rest count.`,
  scenario,
  state,
  playerState,
  inputs: {
    drop: { schema: z.strictObject({}), perSecond: 2, addsBodies: true, label: "drop a box", check: refusal },
    dropAt: {
      schema: z.strictObject({ x: z.number().min(-AREA).max(AREA), z: z.number().min(-AREA).max(AREA) }),
      perSecond: 2,
      addsBodies: true,
      label: "drop a box at (x, z)",
      check: refusal,
    },
    reset: {
      schema: z.strictObject({}),
      roomInterval: 5,
      label: "new round",
      check: (ctx) => (ctx.state.status === "over" ? null : "the round is still on"),
    },
  },
  setup(ctx) {
    Object.assign(ctx.state, state);
    if (ctx.players.length > 0) ctx.state.startTick = ctx.tick;
    for (const p of ctx.players) Object.assign(p.state, playerState);
  },
  onJoin(ctx) {
    if (ctx.state.startTick === 0) ctx.state.startTick = ctx.tick;
  },
  onInput(ctx, player, ...input) {
    if (input[0] === "drop") {
      const spot = dropSpot(ctx, player);
      if (spot !== null) drop(ctx, player, spot[0], spot[1]);
    } else if (input[0] === "dropAt") drop(ctx, player, input[1].x, input[1].z);
    else if (input[0] === "reset" && ctx.state.status === "over") ctx.restart();
  },
  onTick(ctx) {
    if (ctx.state.status !== "building" || ctx.state.startTick === 0) return;
    measure(ctx);
    const left = ROUND_SECONDS * ctx.tickRate - (ctx.tick - ctx.state.startTick);
    ctx.state.secondsLeft = Math.max(0, Math.floor((left + ctx.tickRate - 1) / ctx.tickRate));
    if (left > 0) return;
    ctx.state.status = "over";
    // The tallest wins; a tie for the top (or nobody built anything) is a draw.
    let ties = 0;
    for (const p of ctx.players) if (p.state.height === ctx.state.best) ties++;
    ctx.state.winner = ctx.state.best > 0 && ties === 1 ? ctx.state.leader : "draw";
  },
  client: {
    keys: [
      { key: "KeyE", input: "drop" },
      { key: "KeyR", input: "reset" },
    ],
    help: `WASD to walk, E drops a box in front of you (onto whatever is there). Your height is your highest box at rest; the tallest after ${ROUND_SECONDS / 60} minutes wins. R starts a new round once it is over.`,
    labels: { best: "Best", leader: "Leader", secondsLeft: "Time left", status: "Round", winner: "Winner", startTick: "Started at tick", boxes: "Boxes left", height: "Height" },
  },
});
