import "./style.css";
import { Vector3 } from "three";
import { PhysicsApp } from "./app.ts";

/**
 * Entry: `?room=<id>` joins that room, `?game=<name>` joins (or creates) a room playing that game (GET
 * /games lists them), `?scenario=<name>` one running that scenario (the sandbox's, or a game's that takes
 * any); none of them means the sandbox in arena. Served by the game server itself (same origin); under `npm run dev`
 * Vite proxies the HTTP routes and the SDK talks to the game server directly (VITE_GAME_SERVER).
 */
const params = new URLSearchParams(window.location.search);
const endpoint = import.meta.env.VITE_GAME_SERVER || window.location.origin;
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const app = new PhysicsApp(
  {
    canvas: byId<HTMLCanvasElement>("view"),
    hud: byId("hud"),
    knobs: byId("knobs"),
    banner: byId("banner"),
    kePlot: byId<HTMLCanvasElement>("ke-plot"),
    tickPlot: byId<HTMLCanvasElement>("tick-plot"),
    help: document.querySelector<HTMLElement>("#left .help"),
  },
  endpoint,
);

/** Read-only hooks for the browser test (and for poking around in the console). */
const hooks = {
  get joined() {
    return app.session.joined;
  },
  get roomId() {
    return app.session.room?.roomId ?? "";
  },
  get sessionId() {
    return app.session.room?.sessionId ?? "";
  },
  get avatarId() {
    return app.session.avatarId;
  },
  get connection() {
    return app.session.conn.state;
  },
  /** The room's game by name ("" before the welcome), and whether its listing (inputs, keys, labels) arrived. */
  get game() {
    return app.session.gameName;
  },
  get gameKnown() {
    return app.session.game !== null;
  },
  /** The welcome's avatar spec (null: the game has no avatar, or no welcome yet). */
  get avatarSpec() {
    return app.session.avatar;
  },
  /** The game's fields as the newest patch has them: `{ game: {...}, players: { session: {...} } }`. */
  fields: () => app.session.fields.toJSON(),
  get framesRendered() {
    return app.framesRendered;
  },
  /** Body meshes currently shown. */
  meshCount: () => app.view.visibleCount(),
  /** Bodies in the newest snapshot. */
  bodyCount: () => app.session.snapshots.bodyCount,
  /** "fine" or "crowd": the spheres' detail (coarser in a room of hundreds of bodies). */
  sphereDetail: () => app.view.sphereDetail,
  /** Joints in the newest snapshot. */
  jointCount: () => app.session.snapshots.joints.count,
  /**
   * The joints drawn in the last frame, read back from the line geometry: per joint its id and world
   * points (A's anchor, B's anchor, the arms from each body's origin, the axis segment of a hinge or slider).
   */
  jointLines: () => {
    const lines = app.view.joints;
    return lines.drawnIds.map((id, i) => ({ id, vertices: lines.verticesOf(i) }));
  },
  avatarServerPosition: () => [...app.session.snapshots.avatarServer],
  avatarPredictedPosition: () => [...app.motion.predictor.current],
  /** Server tick of the newest snapshot (NaN before the first). */
  snapshotTick: () => app.session.snapshots.newestTick,
  rejected: () => [...app.session.conn.rejected],
  connectionLog: () => [...app.session.conn.log],
  pixelStats: () => app.view.pixelStats(),
  /**
   * A sleeping dynamic body near the middle of the view whose cursor ray (against the world mirror, as a
   * shift-click casts it) hits that very body: its id and client pixel position. For the push test.
   */
  pushTarget: () => {
    const v = new Vector3();
    const rect = app.view.renderer.domElement.getBoundingClientRect();
    const origin = [0, 0, 0];
    const dir = [0, 0, 1];
    const own = app.motion.ownHandle();
    let best: { id: string; x: number; y: number; d: number } | null = null;
    for (const [id, entry] of app.view.meshes) {
      if (!entry.dynamic || !entry.sleeping || !entry.mesh.visible) continue;
      v.copy(entry.mesh.position).project(app.view.camera);
      if (Math.abs(v.x) > 0.6 || Math.abs(v.y) > 0.6 || v.z > 1) continue;
      const x = rect.left + ((v.x + 1) / 2) * rect.width;
      const y = rect.top + ((1 - v.y) / 2) * rect.height;
      app.view.rayAt(x, y, origin, dir);
      const hit = app.session.snapshots.mirror.world.raycast(origin, dir, 500, (h) => h === own);
      if (hit?.id !== id) continue;
      const d = entry.mesh.position.distanceTo(app.view.camera.position);
      if (!best || d < best.d) best = { id, x, y, d };
    }
    return best;
  },
  /** "follow" or "overview". */
  get cameraMode() {
    return app.view.follow ? "follow" : "overview";
  },
  /** How the scene was framed on join: "hint" (the scenario's camera), "bodies" (computed), "" (not yet). */
  get framedBy() {
    return app.view.framedBy;
  },
  /** The own avatar and the share of the scene's bodies inside the camera's view (projected bounds). */
  viewReport: () => app.view.viewReport(),
  cameraPosition: () => app.view.camera.position.toArray(),
  cameraTarget: () => app.view.controls.target.toArray(),
  /** Body ids of other players' avatars that carry a name tag. */
  nameTags: () => app.view.marks.tagIds(),
  hud: () => ({ ...app.dashboard.values }),
  kineticPeak: () => app.dashboard.kineticPeak,
  resetKineticPeak: () => {
    app.dashboard.kineticPeak = 0;
  },
};
(window as unknown as { __physics: typeof hooks }).__physics = hooks;

app.join({ roomId: params.get("room") ?? undefined, scenario: params.get("scenario") ?? undefined, game: params.get("game") ?? undefined }).catch((err: Error) => {
  app.say(`could not join: ${err.message}`);
  const banner = byId("banner");
  banner.hidden = false;
  banner.textContent = `could not join: ${err.message}`;
});
