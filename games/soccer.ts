import { type BodyDef, defineGame, type GameContext, type Player, type Scenario, type Vec3Tuple, z } from "physics-rooms/game";

/** Half length (x, goal to goal) and half width (z) of the pitch inside its walls, metres. */
const HALF_LENGTH = 15;
const HALF_WIDTH = 10;
/** Walls (and the goals' roofs) stand this high; the goal mouths are this wide and this deep. */
const WALL_HEIGHT = 1.2;
const WALL_HALF_THICKNESS = 0.25;
const GOAL_HALF_WIDTH = 2.5;
const GOAL_DEPTH = 2;
const BALL_RADIUS = 0.4;
const GOALS_TO_WIN = 3;
/** Avatars stand at kickoff this far from the centre line, in a column spread along z. */
const KICKOFF_X = 5;
const KICKOFF_SPACING = 2;
const AVATAR_HALF_HEIGHT = 0.9;

type Team = "red" | "blue";
const BALL = "ball";
/** Who scores when the ball enters a sensor: red attacks the east goal (+x), blue the west one (-x). */
function scoringTeam(sensor: string): Team | null {
  return sensor === "goal-east" ? "red" : sensor === "goal-west" ? "blue" : null;
}

function wall(id: string, half: Vec3Tuple, position: Vec3Tuple): BodyDef {
  return { id, type: "static", shape: { type: "box", halfExtents: half }, position, friction: 0.3, restitution: 0.4 };
}

/** One end of the pitch (side +1: east, -1: west): the wall either side of the mouth, the goal's box and its sensor. */
function end(name: string, side: number): BodyDef[] {
  const h = WALL_HEIGHT / 2;
  const t = WALL_HALF_THICKNESS;
  const segment = (HALF_WIDTH - GOAL_HALF_WIDTH) / 2;
  const x = side * (HALF_LENGTH + t);
  const boxHalf = (GOAL_DEPTH + 2 * t) / 2;
  const boxX = side * (HALF_LENGTH + boxHalf);
  const outer = GOAL_HALF_WIDTH + 2 * t;
  return [
    wall(`wall-${name}-n`, [t, h, segment], [x, h, -(GOAL_HALF_WIDTH + segment)]),
    wall(`wall-${name}-s`, [t, h, segment], [x, h, GOAL_HALF_WIDTH + segment]),
    wall(`goal-${name}-n`, [boxHalf, h, t], [boxX, h, -(GOAL_HALF_WIDTH + t)]),
    wall(`goal-${name}-s`, [boxHalf, h, t], [boxX, h, GOAL_HALF_WIDTH + t]),
    wall(`goal-${name}-back`, [t, h, outer], [side * (HALF_LENGTH + GOAL_DEPTH + t), h, 0]),
    wall(`goal-${name}-roof`, [boxHalf, 0.1, outer], [boxX, WALL_HEIGHT + 0.1, 0]),
    // The sensor starts 2 radii past the goal line: the ball touches it once it has wholly crossed.
    {
      id: `goal-${name}`,
      type: "static",
      sensor: true,
      shape: { type: "box", halfExtents: [(GOAL_DEPTH - 2 * BALL_RADIUS) / 2, h, GOAL_HALF_WIDTH - 0.1] },
      position: [side * (HALF_LENGTH + 2 * BALL_RADIUS + (GOAL_DEPTH - 2 * BALL_RADIUS) / 2), h, 0],
    },
  ];
}

function pitch(): Scenario {
  const h = WALL_HEIGHT / 2;
  const t = WALL_HALF_THICKNESS;
  const sideHalf: Vec3Tuple = [HALF_LENGTH + 2 * t, h, t];
  return {
    name: "soccer-pitch",
    description: "A 30 x 20 m walled pitch with a goal at each end and a ball on the centre spot.",
    world: { bounds: { min: [-200, -50, -200], max: [200, 200, 200] } },
    bodies: [
      { id: "ground", type: "static", shape: { type: "box", halfExtents: [40, 0.5, 30] }, position: [0, -0.5, 0], friction: 0.6 },
      wall("wall-north", sideHalf, [0, h, -(HALF_WIDTH + t)]),
      wall("wall-south", sideHalf, [0, h, HALF_WIDTH + t]),
      ...end("east", 1),
      ...end("west", -1),
      {
        id: BALL,
        type: "dynamic",
        shape: { type: "sphere", radius: BALL_RADIUS },
        position: [0, BALL_RADIUS, 0],
        mass: 0.45,
        friction: 0.4,
        restitution: 0.5,
        linearDamping: 0.4,
        angularDamping: 0.6,
      },
    ],
    camera: { position: [0, 22, 26], target: [0, 0, 0] },
    spawn: [0, 1, 0],
  };
}

const state = { red: 0, blue: 0, goalsToWin: GOALS_TO_WIN, winner: "", status: "playing", lastTouch: "" };
const playerState = { team: "", goals: 0 };
type Ctx = GameContext<typeof state, typeof playerState>;

/** Ball back on the centre spot, still. */
function centreBall(ctx: Ctx): void {
  const ball = ctx.world.handleOf(BALL);
  if (ball < 0) return;
  ctx.world.setTransform(ball, [0, BALL_RADIUS, 0], [0, 0, 0, 1]);
  ctx.world.setLinearVelocity(ball, [0, 0, 0]);
  ctx.world.setAngularVelocity(ball, [0, 0, 0]);
  ctx.state.lastTouch = "";
}

/** Puts a player at their kickoff spot: their own half, in a column of their team (join order). */
function kickoff(ctx: Ctx, player: Player<typeof playerState>): void {
  let index = 0;
  for (const p of ctx.players) {
    if (p === player) break;
    if (p.state.team === player.state.team) index++;
  }
  // 0, +1, -1, +2, -2… spacings from the centre line's middle, wrapped inside the pitch.
  const step = index % 2 === 1 ? (index + 1) / 2 : -index / 2;
  const zSpot = (step * KICKOFF_SPACING) % (HALF_WIDTH - 1);
  const x = player.state.team === "red" ? -KICKOFF_X - Math.floor(index / 9) : KICKOFF_X + Math.floor(index / 9);
  ctx.respawn(player, [x, AVATAR_HALF_HEIGHT + 0.05, zSpot]);
}

function kickoffAll(ctx: Ctx): void {
  centreBall(ctx);
  for (const p of ctx.players) kickoff(ctx, p);
}

export default defineGame({
  name: "soccer",
  version: "2",
  description: `Two teams, one ball: walk into the ball to push it into the other team's goal. First to ${GOALS_TO_WIN} goals wins.`,
  scenario: pitch(),
  avatar: { shape: "capsule", size: [0.8, 1.8, 0.8], speed: 6, jump: 4 },
  state,
  playerState,
  inputs: {
    reset: {
      schema: z.strictObject({}),
      roomInterval: 5,
      label: "new match",
      check: (ctx) => (ctx.state.status === "over" ? null : "the match is still on"),
    },
  },
  setup(ctx) {
    Object.assign(ctx.state, state);
    for (const p of ctx.players) p.state.goals = 0;
    for (const p of ctx.players) kickoff(ctx, p);
  },
  onJoin(ctx, player) {
    let red = 0;
    let blue = 0;
    for (const p of ctx.players) {
      if (p.state.team === "red") red++;
      else if (p.state.team === "blue") blue++;
    }
    player.state.team = red <= blue ? "red" : "blue";
    kickoff(ctx, player);
  },
  onInput(ctx, _player, name) {
    if (name === "reset" && ctx.state.status === "over") ctx.restart();
  },
  onContact(ctx, e) {
    if (e.type !== "contactBegin") return;
    const other = e.a === BALL ? e.b : e.b === BALL ? e.a : "";
    if (!other.startsWith("avatar-")) return;
    const player = ctx.players.find((p) => p.avatarId === other);
    if (player) ctx.state.lastTouch = player.session;
  },
  onSensor(ctx, e) {
    const team = scoringTeam(e.a);
    if (e.type !== "sensorEnter" || e.b !== BALL || team === null) return;
    if (ctx.state.status !== "playing") {
      centreBall(ctx);
      return;
    }
    ctx.state[team]++;
    const scorer = ctx.player(ctx.state.lastTouch);
    if (scorer && scorer.state.team === team) scorer.state.goals++;
    if (ctx.state[team] >= GOALS_TO_WIN) {
      ctx.state.status = "over";
      ctx.state.winner = team;
    }
    kickoffAll(ctx);
  },
  onTick(ctx) {
    // A ball shoved over a wall (or through the floor) comes back to the centre spot.
    const ball = ctx.world.handleOf(BALL);
    if (ball < 0) return;
    const p = ctx.world.getPosition(ball);
    if (p[1] < -1 || Math.abs(p[0]) > HALF_LENGTH + GOAL_DEPTH + 1 || Math.abs(p[2]) > HALF_WIDTH + 1) centreBall(ctx);
  },
  client: {
    keys: [{ key: "KeyR", input: "reset" }],
    help: `WASD to run, Space to jump: walk into the ball to push it. Red scores in the east goal, blue in the west; first to ${GOALS_TO_WIN} wins. R starts a new match once it is over.`,
    labels: { red: "Red", blue: "Blue", goalsToWin: "Goals to win", winner: "Winner", status: "Match", lastTouch: "Last touch", team: "Team", goals: "Goals" },
  },
});
