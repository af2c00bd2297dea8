import {
  ACESFilmicToneMapping,
  BoxGeometry,
  Color,
  DirectionalLight,
  Fog,
  GridHelper,
  HemisphereLight,
  type Material,
  Mesh,
  MeshStandardMaterial,
  PCFShadowMap,
  PerspectiveCamera,
  Raycaster,
  Scene,
  SphereGeometry,
  SRGBColorSpace,
  Vector2,
  Vector3,
  WebGLRenderer,
} from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { KIND_BOX, KIND_DYNAMIC, KIND_KINEMATIC, KIND_TYPE_MASK } from "../../../shared/net/index.ts";
import type { BodyTrack, Pose } from "../net/snapshot-buffer.ts";

/** Static bodies larger than this (half extent, metres) do not cast shadows (the ground, long walls). */
const SHADOW_CASTER_LIMIT = 15;
const PALETTE = [0xe0614f, 0xf2a541, 0x58a55c, 0x3f8fd2, 0x8e6bd1, 0xd45f9c, 0x2fb3a6, 0xc9c14a];

interface BodyMesh {
  mesh: Mesh;
  palette: number;
  sleeping: boolean;
  dynamic: boolean;
}

/**
 * The three.js scene: one mesh per body keyed by body id, sharing two unit geometries (scaled to the
 * body's size) and a small set of materials; lights with shadows that follow the camera's target; an
 * orbit camera that can follow the avatar. Per-frame work writes into existing objects only.
 */
export class SceneView {
  readonly renderer: WebGLRenderer;
  readonly scene = new Scene();
  readonly camera: PerspectiveCamera;
  readonly controls: OrbitControls;
  readonly meshes = new Map<string, BodyMesh>();
  /** Follow the own avatar with the camera. */
  follow = true;
  private readonly sun: DirectionalLight;
  private readonly boxGeometry = new BoxGeometry(1, 1, 1);
  private readonly sphereGeometry = new SphereGeometry(1, 28, 18);
  private readonly staticMaterial = new MeshStandardMaterial({ color: 0x9aa3ab, roughness: 0.95 });
  private readonly groundMaterial = new MeshStandardMaterial({ color: 0x6f7a80, roughness: 1 });
  private readonly avatarMaterial = new MeshStandardMaterial({ color: 0xff8c1a, roughness: 0.5, emissive: 0x331a00 });
  private readonly otherAvatarMaterial = new MeshStandardMaterial({ color: 0x3d7bd9, roughness: 0.5 });
  private readonly awake: MeshStandardMaterial[];
  private readonly asleep: MeshStandardMaterial[];
  private readonly raycaster = new Raycaster();
  private readonly ndc = new Vector2();
  private readonly delta = new Vector3();
  private readonly lastFollow = new Vector3(Number.NaN, 0, 0);
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

    this.awake = PALETTE.map((c) => new MeshStandardMaterial({ color: c, roughness: 0.55, metalness: 0.05 }));
    this.asleep = PALETTE.map((c) => new MeshStandardMaterial({ color: new Color(c).multiplyScalar(0.72), roughness: 0.8 }));
  }

  resize(width: number, height: number): void {
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / Math.max(1, height);
    this.camera.updateProjectionMatrix();
  }

  /** The mesh of a body, created on first use from its track's kind and size. */
  ensure(track: BodyTrack): BodyMesh {
    let entry = this.meshes.get(track.id);
    if (entry) return entry;
    const box = (track.kind & KIND_BOX) !== 0;
    const type = track.kind & KIND_TYPE_MASK;
    const mesh = new Mesh(box ? this.boxGeometry : this.sphereGeometry);
    if (box) mesh.scale.set(2 * track.hx, 2 * track.hy, 2 * track.hz);
    else mesh.scale.setScalar(track.hx);
    const palette = hashId(track.id) % PALETTE.length;
    const big = Math.max(track.hx, track.hy, track.hz) > SHADOW_CASTER_LIMIT;
    mesh.castShadow = !big;
    mesh.receiveShadow = true;
    mesh.matrixAutoUpdate = true;
    mesh.name = track.id;
    entry = { mesh, palette, sleeping: false, dynamic: type === KIND_DYNAMIC };
    mesh.material = this.materialFor(track.id, type, big, palette, false);
    this.meshes.set(track.id, entry);
    this.scene.add(mesh);
    return entry;
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
      m.material = pose.sleeping ? this.asleep[entry.palette] : this.awake[entry.palette];
    }
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
  }

  clear(): void {
    for (const id of [...this.meshes.keys()]) this.remove(id);
  }

  /** Re-applies the avatar materials (the own avatar id became known). */
  refreshAvatar(id: string): void {
    this.ownAvatarId = id;
    const entry = this.meshes.get(id);
    if (entry) entry.mesh.material = this.avatarMaterial;
  }

  /** Visible body meshes. */
  visibleCount(): number {
    let n = 0;
    for (const e of this.meshes.values()) if (e.mesh.visible) n++;
    return n;
  }

  /** Moves camera and target along with the followed point (orbit offset kept), and the sun with them. */
  followPoint(x: number, y: number, z: number): void {
    if (this.follow) {
      if (Number.isNaN(this.lastFollow.x)) {
        this.delta.set(x - this.controls.target.x, y + 0.5 - this.controls.target.y, z - this.controls.target.z);
      } else {
        this.delta.set(x - this.lastFollow.x, y - this.lastFollow.y, z - this.lastFollow.z);
      }
      this.controls.target.add(this.delta);
      this.camera.position.add(this.delta);
      this.lastFollow.set(x, y, z);
    } else {
      this.lastFollow.x = Number.NaN;
    }
    const t = this.controls.target;
    this.sun.position.set(t.x + 18, t.y + 30, t.z + 12);
    this.sun.target.position.copy(t);
  }

  render(): void {
    this.controls.update();
    this.renderer.render(this.scene, this.camera);
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
