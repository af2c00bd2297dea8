import {
  ACESFilmicToneMapping,
  Box3,
  Color,
  DirectionalLight,
  Fog,
  GridHelper,
  MathUtils,
  HemisphereLight,
  type Material,
  Mesh,
  MeshStandardMaterial,
  type Object3D,
  PCFShadowMap,
  PerspectiveCamera,
  Raycaster,
  Scene,
  SRGBColorSpace,
  Vector2,
  Vector3,
  WebGLRenderer,
} from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import type { ShapeDef } from "../../../shared/engine/index.ts";
import { KIND_DYNAMIC, KIND_KINEMATIC, KIND_SENSOR, KIND_TYPE_MASK, shapeOfBody } from "../../../shared/net/index.ts";
import type { JointBuffer } from "../net/joint-buffer.ts";
import type { BodyTrack, Pose } from "../net/snapshot-buffer.ts";
import { AvatarMarks } from "./avatar-marks.ts";
import { CameraRig, computeFraming, type FramedBody, SLAB_RADIUS } from "./camera-rig.ts";
import { JointLines } from "./joint-lines.ts";
import { ShapeGeometries, shapeReach } from "./shape-geometry.ts";

/** Static bodies larger than this (half extent, metres) do not cast shadows (the ground, long walls). */
const SHADOW_CASTER_LIMIT = 15;
/** Above this many bodies the room is a crowd (coarser spheres, ShapeGeometries.setCrowded); back below CROWD_LEAVE. */
const CROWD_ENTER = 500;
const CROWD_LEAVE = 400;
const PALETTE = [0xe0614f, 0xf2a541, 0x58a55c, 0x3f8fd2, 0x8e6bd1, 0xd45f9c, 0x2fb3a6, 0xc9c14a];

/** A body's track as the renderer reads it: kind and size, and the shape descriptor of a shape that has one. */
export type ShapedTrack = BodyTrack & { readonly shape?: string };

/** Drawn in place of a body whose shape descriptor is missing or unreadable: seen, and clearly not the body. */
const PLACEHOLDER: ShapeDef = { type: "sphere", radius: 0.25 };

export interface BodyMesh {
  /** The body's object: a Mesh, or a Group of Meshes for a compound (see paint). */
  mesh: Object3D;
  palette: number;
  sleeping: boolean;
  dynamic: boolean;
  /** A kinematic body: a player's avatar. */
  avatar: boolean;
  /** Reach from its origin (sphere radius, half diagonal of a box, farthest point of other shapes), metres. */
  radius: number;
}

/** A scene to frame once its bodies and the own avatar are drawn (see requestFraming). */
interface PendingFraming {
  hint: { position: Vector3; target: Vector3 } | null;
  /** Frames waited so far for the own avatar's mesh. */
  frames: number;
}

/** Frames a framing waits for the own avatar before framing the bodies without it (about 2 s). */
const FRAMING_WAIT_FRAMES = 120;

/**
 * The three.js scene: one object per body keyed by body id, built from its shape (shape-geometry.ts:
 * spheres and boxes share two unit geometries scaled to the body's size, other shapes share a geometry
 * per distinct definition) and a small set of materials; lights with shadows that follow the camera's target; an
 * orbit camera framed on each new scene that then follows the avatar (CameraRig), and marks that set
 * avatars apart from boxes (AvatarMarks), and the joints as lines between the bodies (JointLines).
 * Per-frame work writes into existing objects only.
 */
export class SceneView {
  readonly renderer: WebGLRenderer;
  readonly scene = new Scene();
  readonly camera: PerspectiveCamera;
  readonly controls: OrbitControls;
  readonly meshes = new Map<string, BodyMesh>();
  readonly rig: CameraRig;
  readonly marks: AvatarMarks;
  readonly joints = new JointLines();
  /** How the current scene was framed: from the scenario's hint, computed from the bodies, or not yet. */
  framedBy: "hint" | "bodies" | "" = "";
  private pending: PendingFraming | null = null;
  /** The last framing, for going back to the overview. */
  private readonly overview = { position: new Vector3(14, 12, 18), target: new Vector3(0, 1, 0), hinted: false };
  private readonly sun: DirectionalLight;
  private readonly geometries = new ShapeGeometries();
  private readonly staticMaterial = new MeshStandardMaterial({ color: 0x9aa3ab, roughness: 0.95 });
  private readonly groundMaterial = new MeshStandardMaterial({ color: 0x6f7a80, roughness: 1 });
  // Avatars in colours no box has (boxes take the saturated PALETTE): white for the own one (with a dark
  // outline and a lime marker), charcoal with a name tag for the others.
  private readonly avatarMaterial = new MeshStandardMaterial({ color: 0xffffff, roughness: 0.4, emissive: 0x3a3a3a });
  private readonly otherAvatarMaterial = new MeshStandardMaterial({ color: 0x2b3036, roughness: 0.6 });
  /** Sensors (trigger zones) are drawn as translucent volumes: seen, but never mistaken for something solid. */
  private readonly sensorMaterial = new MeshStandardMaterial({ color: 0x3fd0ff, transparent: true, opacity: 0.22, depthWrite: false, roughness: 1 });
  private readonly awake: MeshStandardMaterial[];
  private readonly asleep: MeshStandardMaterial[];
  private readonly raycaster = new Raycaster();
  private readonly ndc = new Vector2();
  ownAvatarId = "";

  constructor(canvas: HTMLCanvasElement) {
    this.renderer = new WebGLRenderer({ canvas, antialias: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    this.renderer.shadowMap.enabled = true;
    this.renderer.shadowMap.type = PCFShadowMap;
    this.renderer.outputColorSpace = SRGBColorSpace;
    this.renderer.toneMapping = ACESFilmicToneMapping;
    this.scene.background = new Color(0xbfd4e6);
    this.scene.fog = new Fog(0xbfd4e6, 80, 220);

    this.camera = new PerspectiveCamera(55, 1, 0.1, 500);
    this.camera.position.set(14, 12, 18);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.target.set(0, 1, 0);
    this.controls.enableDamping = false;
    this.controls.maxPolarAngle = Math.PI * 0.495;
    this.controls.update();
    this.rig = new CameraRig(this.camera, this.controls);
    this.marks = new AvatarMarks(this.scene);

    this.scene.add(new HemisphereLight(0xddeeff, 0x4a4036, 1.2));
    this.sun = new DirectionalLight(0xffffff, 2.2);
    this.sun.castShadow = true;
    this.sun.shadow.mapSize.set(2048, 2048);
    const s = this.sun.shadow.camera;
    s.left = -30;
    s.right = 30;
    s.top = 30;
    s.bottom = -30;
    s.near = 1;
    s.far = 120;
    this.sun.shadow.bias = -0.0005;
    this.sun.shadow.normalBias = 0.02;
    this.scene.add(this.sun, this.sun.target);

    const grid = new GridHelper(200, 200, 0x4d575c, 0x5d686e);
    grid.position.y = 0.002;
    this.scene.add(grid);
    this.scene.add(this.joints.object);

    this.awake = PALETTE.map((c) => new MeshStandardMaterial({ color: c, roughness: 0.55, metalness: 0.05 }));
    this.asleep = PALETTE.map((c) => new MeshStandardMaterial({ color: new Color(c).multiplyScalar(0.72), roughness: 0.8 }));
  }

  /** Pixels on the window's left that a panel covers; the view is centred on the rest (see resize). */
  private leftInset = 0;
  private width = 1;
  private height = 1;

  /**
   * The canvas' size, and how much of its left side a panel covers: the projection is shifted (film
   * offset) so that the middle of the view is the middle of the uncovered part, and framings fit that part.
   */
  resize(width: number, height: number, leftInset = 0): void {
    this.width = Math.max(1, width);
    this.height = Math.max(1, height);
    this.leftInset = Math.min(Math.max(0, leftInset), this.width / 2);
    this.renderer.setSize(width, height, false);
    this.camera.aspect = this.width / this.height;
    const shift = this.leftInset / 2 / this.width;
    this.camera.filmOffset = -shift * 2 * Math.tan(MathUtils.degToRad(this.camera.fov / 2)) * this.camera.aspect * this.camera.getFilmWidth();
    this.camera.updateProjectionMatrix();
  }

  /** Width over height of the part of the view no panel covers. */
  private freeAspect(): number {
    return (this.width - this.leftInset) / this.height;
  }

  /**
   * The object of a body, created on first use from its track's kind and size, or its shape descriptor
   * (`track.shape`); `shape` gives the definition directly (the replay viewer reads it from its world).
   */
  ensure(track: ShapedTrack, shape?: ShapeDef): BodyMesh {
    let entry = this.meshes.get(track.id);
    if (entry) return entry;
    const type = track.kind & KIND_TYPE_MASK;
    const sensor = (track.kind & KIND_SENSOR) !== 0;
    const def = shape ?? shapeOfBody(track.kind, track.hx, track.hy, track.hz, track.shape) ?? PLACEHOLDER;
    const radius = shapeReach(def);
    const palette = hashId(track.id) % PALETTE.length;
    // Spheres and boxes by their largest half extent, as always; other shapes by their reach.
    const extent = def.type === "box" ? Math.max(...def.halfExtents) : radius;
    const big = extent > SHADOW_CASTER_LIMIT;
    const material = sensor ? this.sensorMaterial : this.materialFor(track.id, type, big, palette, false);
    const mesh = this.geometries.create(def, material);
    mesh.traverse((o) => {
      o.castShadow = !big && !sensor;
      o.receiveShadow = !sensor;
    });
    mesh.matrixAutoUpdate = true;
    mesh.name = track.id;
    entry = { mesh, palette, sleeping: false, dynamic: type === KIND_DYNAMIC && !sensor, avatar: type === KIND_KINEMATIC && !sensor, radius };
    this.meshes.set(track.id, entry);
    if (this.meshes.size > CROWD_ENTER) this.geometries.setCrowded(true);
    this.scene.add(mesh);
    return entry;
  }

  /** Gives a body's object another material (every part of a compound). */
  paint(entry: BodyMesh, material: Material): void {
    entry.mesh.traverse((o) => {
      if (o instanceof Mesh) o.material = material;
    });
  }

  private materialFor(id: string, type: number, big: boolean, palette: number, sleeping: boolean): Material {
    if (type === KIND_KINEMATIC) return id === this.ownAvatarId ? this.avatarMaterial : this.otherAvatarMaterial;
    if (type !== KIND_DYNAMIC) return big ? this.groundMaterial : this.staticMaterial;
    return sleeping ? this.asleep[palette] : this.awake[palette];
  }

  /** Places a body's mesh at a pose; sleeping dynamic bodies are drawn darker. */
  setPose(entry: BodyMesh, pose: Pose): void {
    const m = entry.mesh;
    m.visible = true;
    m.position.set(pose.x, pose.y, pose.z);
    m.quaternion.set(pose.qx, pose.qy, pose.qz, pose.qw);
    if (entry.dynamic && entry.sleeping !== pose.sleeping) {
      entry.sleeping = pose.sleeping;
      this.paint(entry, pose.sleeping ? this.asleep[entry.palette] : this.awake[entry.palette]);
    }
  }

  /** Draws the joints visible at `renderTime` between the bodies as this frame posed them. */
  drawJoints(joints: JointBuffer, renderTime: number): void {
    this.joints.update(joints, renderTime, this.meshes);
  }

  hide(id: string): void {
    const entry = this.meshes.get(id);
    if (entry) entry.mesh.visible = false;
  }

  remove(id: string): void {
    const entry = this.meshes.get(id);
    if (!entry) return;
    this.scene.remove(entry.mesh);
    this.meshes.delete(id);
    this.marks.remove(id);
    if (this.meshes.size < CROWD_LEAVE) this.geometries.setCrowded(false);
  }

  clear(): void {
    for (const id of [...this.meshes.keys()]) this.remove(id);
  }

  /** Re-applies the avatar materials (the own avatar id became known). */
  refreshAvatar(id: string): void {
    this.ownAvatarId = id;
    const entry = this.meshes.get(id);
    if (entry) this.paint(entry, this.avatarMaterial);
  }

  /** The spheres' detail: "crowd" (coarser) in a room of more than CROWD_ENTER bodies, else "fine". */
  get sphereDetail(): "fine" | "crowd" {
    return this.geometries.sphereDetail;
  }

  /** Visible body meshes. */
  visibleCount(): number {
    let n = 0;
    for (const e of this.meshes.values()) if (e.mesh.visible) n++;
    return n;
  }

  /** Follow mode (true) or the scene's overview (false); the F key and the view buttons switch it. */
  get follow(): boolean {
    return this.rig.mode === "follow";
  }

  set follow(on: boolean) {
    if (on === this.follow) return;
    if (on) this.rig.startFollowing();
    else {
      this.rig.mode = "overview";
      this.showOverview();
    }
  }

  /**
   * Frames the scene once its bodies and the own avatar are drawn: from the scenario's camera hint
   * (position then target, 6 numbers) when there is one, else from the bodies (computeFraming).
   */
  requestFraming(hint: readonly number[] | null): void {
    const h = hint !== null && hint.length === 6 ? hint : null;
    this.pending = {
      hint: h ? { position: new Vector3(h[0], h[1], h[2]), target: new Vector3(h[3], h[4], h[5]) } : null,
      frames: 0,
    };
    this.framedBy = "";
  }

  /** The camera follows this point (the own avatar, where prediction has it); the sun follows the view. */
  followPoint(x: number, y: number, z: number): void {
    this.rig.follow(x, y, z);
  }

  private framePending(): void {
    const p = this.pending;
    if (!p) return;
    const own = this.meshes.get(this.ownAvatarId);
    const avatar = own?.mesh.visible ? own.mesh.position.clone() : null;
    if (!avatar && ++p.frames < FRAMING_WAIT_FRAMES) return;
    if (!avatar && this.visibleCount() === 0) return;
    this.pending = null;
    const hinted = p.hint !== null;
    const view = p.hint ?? computeFraming(this.framedBodies(), avatar, this.camera.fov, this.freeAspect());
    this.overview.position.copy(view.position);
    this.overview.target.copy(view.target);
    this.overview.hinted = hinted;
    this.rig.apply(view.position, view.target, avatar);
    this.framedBy = hinted ? "hint" : "bodies";
    this.fitFog();
  }

  /** Back to the scene's framing (recomputed from the bodies where it was computed). */
  private showOverview(): void {
    const own = this.meshes.get(this.ownAvatarId);
    const avatar = own?.mesh.visible ? own.mesh.position.clone() : null;
    if (!this.overview.hinted && this.visibleCount() > 0) {
      const view = computeFraming(this.framedBodies(), avatar, this.camera.fov, this.freeAspect());
      this.overview.position.copy(view.position);
      this.overview.target.copy(view.target);
    }
    this.rig.apply(this.overview.position, this.overview.target, avatar);
    this.fitFog();
  }

  /** Every shown body but avatars, for the framing. */
  private framedBodies(): FramedBody[] {
    const out: FramedBody[] = [];
    for (const e of this.meshes.values()) {
      if (e.mesh.visible && !e.avatar) out.push({ position: e.mesh.position, radius: e.radius, dynamic: e.dynamic });
    }
    return out;
  }

  /** Fog starts beyond the framed scene, so a large scene seen from afar is not washed out. */
  private fitFog(): void {
    const fog = this.scene.fog as Fog;
    const d = this.camera.position.distanceTo(this.controls.target);
    fog.near = Math.max(80, 1.5 * d);
    fog.far = Math.max(220, 4 * d);
  }

  /** Avatar marks for this frame: the own avatar's outline and marker, the others' name tags. */
  private placeMarks(now: number): void {
    const own = this.meshes.get(this.ownAvatarId);
    const eye = this.camera.position;
    this.marks.own(own ? own.mesh : null, now, eye);
    for (const [id, e] of this.meshes) if (e.avatar && id !== this.ownAvatarId && id.startsWith("avatar-")) this.marks.other(id, e.mesh, eye);
  }

  render(): void {
    this.framePending();
    this.placeMarks(performance.now());
    const t = this.controls.target;
    this.sun.position.set(t.x + 18, t.y + 30, t.z + 12);
    this.sun.target.position.copy(t);
    this.controls.update();
    this.renderer.render(this.scene, this.camera);
  }

  /**
   * What the camera shows, for tests: whether the own avatar's bounds project inside the window, and how
   * many of the scene's other bodies do (every corner of their world bounds inside the view), ground
   * slabs and other players' avatars left out. Ids of a few bodies outside, for messages.
   */
  viewReport(): { avatarInView: boolean; bodies: number; inView: number; outside: string[] } {
    this.camera.updateMatrixWorld();
    const box = new Box3();
    const corner = new Vector3();
    const inside = (mesh: Object3D): boolean => {
      box.setFromObject(mesh);
      for (let i = 0; i < 8; i++) {
        corner.set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z).project(this.camera);
        if (Math.abs(corner.x) > 1 || Math.abs(corner.y) > 1 || corner.z > 1 || corner.z < -1) return false;
      }
      return true;
    };
    const own = this.meshes.get(this.ownAvatarId);
    let bodies = 0;
    let inView = 0;
    const outside: string[] = [];
    for (const [id, e] of this.meshes) {
      if (!e.mesh.visible || e.avatar || (!e.dynamic && e.radius > SLAB_RADIUS)) continue;
      bodies++;
      if (inside(e.mesh)) inView++;
      else if (outside.length < 10) outside.push(id);
    }
    return { avatarInView: own !== undefined && own.mesh.visible && inside(own.mesh), bodies, inView, outside };
  }

  /** Ray through a canvas point (client pixels), written into origin/direction. */
  rayAt(clientX: number, clientY: number, origin: number[], direction: number[]): void {
    const rect = this.renderer.domElement.getBoundingClientRect();
    this.ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    this.raycaster.setFromCamera(this.ndc, this.camera);
    const r = this.raycaster.ray;
    origin[0] = r.origin.x;
    origin[1] = r.origin.y;
    origin[2] = r.origin.z;
    direction[0] = r.direction.x;
    direction[1] = r.direction.y;
    direction[2] = r.direction.z;
  }

  /** Camera forward and right on the ground plane (unit), for camera-relative movement. */
  groundAxes(out: { fx: number; fz: number; rx: number; rz: number }): void {
    let fx = this.controls.target.x - this.camera.position.x;
    let fz = this.controls.target.z - this.camera.position.z;
    const len = Math.hypot(fx, fz) || 1;
    fx /= len;
    fz /= len;
    out.fx = fx;
    out.fz = fz;
    out.rx = -fz;
    out.rz = fx;
  }

  /**
   * Renders a frame and reads the canvas back in the same task (before the browser composites and
   * clears it): mean and variance of the luminance and the number of distinct 4-bit colours. For tests.
   */
  pixelStats(): { mean: number; variance: number; colors: number; width: number; height: number } {
    this.render();
    const gl = this.renderer.getContext();
    const w = gl.drawingBufferWidth;
    const h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let sum = 0;
    let sumSq = 0;
    const colors = new Set<number>();
    for (let i = 0; i < px.length; i += 4) {
      const l = 0.2126 * px[i] + 0.7152 * px[i + 1] + 0.0722 * px[i + 2];
      sum += l;
      sumSq += l * l;
      colors.add(((px[i] >> 4) << 8) | ((px[i + 1] >> 4) << 4) | (px[i + 2] >> 4));
    }
    const n = w * h;
    const mean = sum / n;
    return { mean, variance: sumSq / n - mean * mean, colors: colors.size, width: w, height: h };
  }
}

function hashId(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return h >>> 0;
}
