import { Box3, MathUtils, type PerspectiveCamera, Vector3 } from "three";
import type { OrbitControls } from "three/addons/controls/OrbitControls.js";

/** A body as the framing sees it: where it is and how far it reaches from there, metres. */
export interface FramedBody {
  position: Vector3;
  radius: number;
  dynamic: boolean;
}

/** Static bodies reaching further than this are ground slabs and long walls: they frame nothing. */
export const SLAB_RADIUS = 15;
/** Bodies further than this from the bodies' mean (thrown away, falling out of the world) are left out, metres. */
const OUTLIER_DISTANCE = 80;
/** Smallest radius a framing covers, metres (a single small body is not shown filling the window). */
const MIN_RADIUS = 3;
/** The framing looks down at the scene at this angle, degrees. */
const ELEVATION_DEG = 25;
/**
 * The framing looks from the avatar's side, turned this far about the vertical so the avatar does not
 * stand in front of the scene's middle (W then still walks toward it: cos 30° = 0.87), degrees.
 */
const SIDESTEP_DEG = 30;
/** Room left around the framed sphere (1 = touching the window's edge). */
const MARGIN = 1.15;
/** Follow mode keeps the camera between these distances from the avatar, metres. */
const FOLLOW_MIN = 6;
const FOLLOW_MAX = 16;

export type CameraMode = "follow" | "overview";

const UP = new Vector3(0, 1, 0);

/**
 * Where the camera stands when a scene is first shown without a camera hint: a view of the sphere
 * around its bodies (dynamic ones, and static ones smaller than a ground slab or a long wall) and the own
 * avatar, seen from the avatar's side at a slight elevation, so that the avatar's forward (W) walks
 * toward the action.
 */
export function computeFraming(
  bodies: readonly FramedBody[],
  avatar: Vector3 | null,
  fovDeg: number,
  aspect: number,
): { position: Vector3; target: Vector3 } {
  const bounds = framedBounds(bodies, avatar);
  const target = bounds.getCenter(new Vector3());
  const radius = Math.max(MIN_RADIUS, bounds.getSize(new Vector3()).length() / 2);
  const halfV = MathUtils.degToRad(fovDeg) / 2;
  const halfH = Math.atan(Math.tan(halfV) * aspect);
  const distance = (radius * MARGIN) / Math.sin(Math.min(halfV, halfH));
  const dir = new Vector3(0.5, 0, 0.866);
  if (avatar) {
    const away = new Vector3(avatar.x - target.x, 0, avatar.z - target.z);
    if (away.length() > 0.5) dir.copy(away).normalize().applyAxisAngle(UP, MathUtils.degToRad(SIDESTEP_DEG));
  }
  const elevation = MathUtils.degToRad(ELEVATION_DEG);
  const position = target
    .clone()
    .addScaledVector(dir, distance * Math.cos(elevation))
    .add(new Vector3(0, distance * Math.sin(elevation), 0));
  return { position, target };
}

/** Bounds of what a framing shows: see computeFraming. */
function framedBounds(bodies: readonly FramedBody[], avatar: Vector3 | null): Box3 {
  const chosen = bodies.filter((b) => b.dynamic || b.radius <= SLAB_RADIUS);
  const mean = new Vector3();
  for (const b of chosen) mean.add(b.position);
  if (chosen.length > 0) mean.divideScalar(chosen.length);
  const bounds = new Box3();
  const reach = new Vector3();
  for (const b of chosen) {
    if (b.position.distanceTo(mean) > OUTLIER_DISTANCE) continue;
    reach.setScalar(b.radius);
    bounds.expandByPoint(reach.clone().add(b.position));
    bounds.expandByPoint(reach.negate().add(b.position));
  }
  if (avatar) {
    bounds.expandByPoint(new Vector3(avatar.x - 1, avatar.y - 1, avatar.z - 1));
    bounds.expandByPoint(new Vector3(avatar.x + 1, avatar.y + 1, avatar.z + 1));
  }
  if (bounds.isEmpty()) bounds.setFromCenterAndSize(new Vector3(0, 1, 0), new Vector3(2, 2, 2));
  return bounds;
}

/**
 * The camera's two modes. `follow` (the default): the camera moves along with the own avatar, keeping
 * whatever view the player orbited to. `overview`: the camera stays on the scene's framing. A new scene
 * is framed on join whatever the mode; switching to overview frames it again, switching to follow brings
 * the avatar to the middle of the view.
 */
export class CameraRig {
  mode: CameraMode = "follow";
  /** Where the followed point was last frame (NaN: snap to it on the next one). */
  private readonly last = new Vector3(Number.NaN, 0, 0);
  private readonly delta = new Vector3();

  private readonly camera: PerspectiveCamera;
  private readonly controls: OrbitControls;

  constructor(camera: PerspectiveCamera, controls: OrbitControls) {
    this.camera = camera;
    this.controls = controls;
  }

  /** Puts the camera at a framing; the followed point is `avatar` from now on (no jump toward it). */
  apply(position: Vector3, target: Vector3, avatar: Vector3 | null): void {
    this.camera.position.copy(position);
    this.controls.target.copy(target);
    this.camera.lookAt(target);
    this.controls.update();
    if (avatar) this.last.copy(avatar);
    else this.last.x = Number.NaN;
  }

  /** Follow mode on: the next followed point becomes the view's centre (orbit direction kept). */
  startFollowing(): void {
    this.mode = "follow";
    this.last.x = Number.NaN;
  }

  /** One frame with the followed point at (x, y, z). */
  follow(x: number, y: number, z: number): void {
    if (this.mode !== "follow") return;
    const t = this.controls.target;
    if (Number.isNaN(this.last.x)) {
      // Snap: the target to the avatar, the camera at its current direction within the follow distances.
      const offset = this.delta.copy(this.camera.position).sub(t);
      offset.setLength(MathUtils.clamp(offset.length(), FOLLOW_MIN, FOLLOW_MAX));
      t.set(x, y + 0.5, z);
      this.camera.position.copy(t).add(offset);
    } else {
      this.delta.set(x - this.last.x, y - this.last.y, z - this.last.z);
      t.add(this.delta);
      this.camera.position.add(this.delta);
    }
    this.last.set(x, y, z);
  }
}
