import "../style.css";
import "./replay.css";
import { ReplayApp, SPEEDS } from "./replay-app.ts";
import { TICK_MATCH, TICK_MISMATCH } from "./replay-player.ts";

/**
 * Entry of the replay viewer page. `/replay/<roomId>` fetches that room's recording from the server
 * (`GET /rooms/<roomId>/replay`, relative, so it works behind a path prefix too); `/replay/` shows a drop
 * zone and a file picker. A file dropped anywhere on the page replaces the replay shown.
 */
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ROOM_ID = /^[A-Za-z0-9_-]{1,64}$/;

const app = new ReplayApp({
  canvas: byId<HTMLCanvasElement>("view"),
  timeline: byId<HTMLCanvasElement>("timeline"),
  drop: byId("drop"),
  title: byId("replay-title"),
  status: byId("replay-status"),
  readout: byId("replay-readout"),
  divergence: byId("replay-divergence"),
  tickLabel: byId("tick-label"),
  legend: byId("legend"),
});

/** The room id after `/replay/` in the address, "" for none. */
function roomIdFromPath(): string {
  const match = /\/replay\/([^/?#]*)\/?$/.exec(window.location.pathname);
  return match ? decodeURIComponent(match[1]) : "";
}

async function loadRoom(roomId: string): Promise<void> {
  if (!ROOM_ID.test(roomId)) {
    app.fail(`"${roomId}" is not a room id (letters, digits, _ and -, at most 64)`);
    return;
  }
  app.state = "loading";
  byId("replay-status").textContent = `downloading the replay of ${roomId}…`;
  // The admin route next to this page: whatever prefix the page is served under, `/replay/…` becomes `/rooms/…`.
  const prefix = window.location.pathname.replace(/\/replay\/[^/]*\/?$/, "/");
  const res = await fetch(`${prefix}rooms/${encodeURIComponent(roomId)}/replay`).catch((err: Error) => err);
  if (res instanceof Error) {
    app.fail(`could not reach the server: ${res.message}`);
    return;
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    app.fail(`no replay for room ${roomId}: HTTP ${res.status}${body?.message ? ` (${body.message})` : ""}`);
    return;
  }
  app.load(await res.text(), `room ${roomId}`);
}

async function loadFile(file: File): Promise<void> {
  app.state = "loading";
  app.load(await file.text(), file.name);
}

function wireFileInputs(): void {
  const input = byId<HTMLInputElement>("file");
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    if (file) void loadFile(file);
  });
  window.addEventListener("dragover", (e) => {
    e.preventDefault();
    document.body.classList.add("dragging");
  });
  window.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
  window.addEventListener("drop", (e) => {
    e.preventDefault();
    document.body.classList.remove("dragging");
    const file = e.dataTransfer?.files[0];
    if (file) void loadFile(file);
  });
}

function wireControls(): void {
  byId("play").addEventListener("click", () => app.togglePlay());
  byId("step-back").addEventListener("click", () => app.stepBy(-1));
  byId("step-forward").addEventListener("click", () => app.stepBy(1));
  const speed = byId<HTMLSelectElement>("speed");
  speed.addEventListener("change", () => {
    app.speed = Number(speed.value);
  });
  window.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const n = e.shiftKey ? 10 : 1;
    if (e.key === " ") app.togglePlay();
    else if (e.key === "ArrowLeft") app.stepBy(-n);
    else if (e.key === "ArrowRight") app.stepBy(n);
    else if (e.key === "Home") app.seek(0);
    else if (e.key === "End") app.seek(app.player?.ticks ?? 0);
    else return;
    e.preventDefault();
  });
  setInterval(() => {
    byId("play").textContent = app.playing ? "pause" : "play";
  }, 100);
}

/** Read-only hooks for the browser test (and the console); `seek` returns how long the seek took. */
const hooks = {
  get state() {
    return app.state;
  },
  get error() {
    return app.error;
  },
  get source() {
    return app.source;
  },
  summary() {
    const p = app.player;
    if (!p) return null;
    let matched = 0;
    let mismatched = 0;
    for (const s of p.status) {
      if (s === TICK_MATCH) matched++;
      else if (s === TICK_MISMATCH) mismatched++;
    }
    const d = p.divergence;
    return {
      ticks: p.ticks,
      verifiedTo: p.verifiedTo,
      verified: p.verified,
      ticksMatched: matched,
      ticksMismatched: mismatched,
      keyframesInFile: p.data.keyframes.size,
      keyframesChecked: p.keyframeResults.length,
      keyframesMatched: p.keyframesMatched,
      checkpoints: p.checkpointCount,
      inputTicks: p.data.inputs.filter((i) => i.length > 0).length,
      divergence: d && { tick: d.tick, line: d.line, keyframeTick: d.keyframeTick, bodies: d.bodies.map((b) => b.id) },
      simError: p.error,
    };
  },
  /** Seeks and draws the tick (scene, panel); returns the tick reached, its hash and the time taken, ms. */
  seek(tick: number) {
    const start = performance.now();
    app.seek(tick);
    const p = app.player!;
    app.drawWorld(p);
    app.view.render();
    const ms = performance.now() - start;
    return { tick: p.tick, hash: p.cursor.world.stateHash(), recorded: p.tick > 0 ? p.data.hashes[p.tick - 1] : "", ms };
  },
  get tick() {
    return app.player?.tick ?? 0;
  },
  get playing() {
    return app.playing;
  },
  highlighted: () => app.scene.highlightedIds(),
  meshCount: () => app.view.visibleCount(),
  /** The joints drawn at the last drawn tick: per joint its id and world points, as in the live client's hook. */
  jointLines: () => {
    const lines = app.view.joints;
    return lines.drawnIds.map((id, i) => ({ id, vertices: lines.verticesOf(i) }));
  },
  speeds: SPEEDS,
};
(window as unknown as { __replay: typeof hooks }).__replay = hooks;

wireFileInputs();
wireControls();
const roomId = roomIdFromPath();
if (roomId === "") {
  byId("drop").hidden = false;
} else {
  void loadRoom(roomId);
}
