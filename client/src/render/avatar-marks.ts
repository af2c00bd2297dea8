import {
  BackSide,
  BoxGeometry,
  CanvasTexture,
  ConeGeometry,
  type Mesh,
  Mesh as MeshObject,
  MeshBasicMaterial,
  type Object3D,
  type Scene,
  Sprite,
  SpriteMaterial,
  SRGBColorSpace,
  Vector3,
} from "three";

/** The own avatar's marker colour: a lime no box uses (the box palette and its darker sleeping shades). */
export const OWN_MARKER_COLOR = 0xa6ff2e;
/** How far above the avatar's centre the marker and name tags float, metres. */
const MARK_HEIGHT = 1.7;
/** Beyond this distance from the camera the marks grow with it, so they stay readable from afar, metres. */
const NEAR = 16;
/** Width of the own avatar's dark rim, metres (each side: half of it). */
const RIM = 0.12;
const geometrySize = new Vector3();
/** Name tag size in the world (within NEAR of the camera), metres. */
const TAG_WIDTH = 1.8;
const TAG_HEIGHT = 0.45;

/**
 * What sets avatars apart from the boxes around them: the own avatar gets a dark outline and a lime
 * arrow bobbing above it; every other player's avatar gets a name tag (the short session id). All of it
 * is drawn over whatever mesh the snapshot stream gives the avatar, repositioned every frame.
 */
export class AvatarMarks {
  private readonly outline: Mesh;
  private readonly marker: Mesh;
  private readonly tags = new Map<string, Sprite>();
  private readonly outlineMaterial = new MeshBasicMaterial({ color: 0x0b0f12, side: BackSide });

  private readonly scene: Scene;

  constructor(scene: Scene) {
    this.scene = scene;
    // The avatar's own geometry (a unit box until it is known), scaled a little past the avatar's mesh and
    // drawn inside out: a dark rim around it, whatever the game's avatar shape.
    this.outline = new MeshObject(new BoxGeometry(1, 1, 1), this.outlineMaterial);
    this.outline.visible = false;
    const cone = new ConeGeometry(0.32, 0.6, 4);
    cone.rotateX(Math.PI);
    this.marker = new MeshObject(cone, new MeshBasicMaterial({ color: OWN_MARKER_COLOR }));
    this.marker.visible = false;
    this.marker.name = "own-avatar-marker";
    scene.add(this.outline, this.marker);
  }

  /** The own avatar's mesh this frame (null: not shown). `now` in ms, for the marker's bob. */
  own(mesh: Object3D | null, now: number, eye: Vector3): void {
    const shown = mesh?.visible === true;
    this.outline.visible = shown;
    this.marker.visible = shown;
    if (!shown || !mesh) return;
    this.outline.position.copy(mesh.position);
    this.outline.quaternion.copy(mesh.quaternion);
    const geometry = (mesh as Mesh).isMesh ? (mesh as Mesh).geometry : null;
    if (geometry && this.outline.geometry !== geometry) this.outline.geometry = geometry;
    const g = this.outline.geometry;
    if (!g.boundingBox) g.computeBoundingBox();
    g.boundingBox?.getSize(geometrySize);
    // Each axis RIM metres wider than the mesh: scale s of a geometry g wide draws s·g, the rim s·g + RIM.
    const rim = (s: number, size: number) => (size > 0 ? s + RIM / size : s);
    this.outline.scale.set(rim(mesh.scale.x, geometrySize.x), rim(mesh.scale.y, geometrySize.y), rim(mesh.scale.z, geometrySize.z));
    const k = grow(mesh.position, eye);
    this.marker.scale.setScalar(k);
    this.marker.position.set(mesh.position.x, mesh.position.y + MARK_HEIGHT * Math.sqrt(k) + 0.12 * k * Math.sin(now / 300), mesh.position.z);
    this.marker.rotation.y = now / 900;
  }

  /** Another player's avatar this frame: its tag follows it. */
  other(id: string, mesh: Object3D, eye: Vector3): void {
    let tag = this.tags.get(id);
    if (!tag) {
      tag = makeTag(shortName(id));
      this.tags.set(id, tag);
      this.scene.add(tag);
    }
    tag.visible = mesh.visible;
    const k = grow(mesh.position, eye);
    tag.scale.set(TAG_WIDTH * k, TAG_HEIGHT * k, 1);
    tag.position.set(mesh.position.x, mesh.position.y + MARK_HEIGHT * Math.sqrt(k), mesh.position.z);
  }

  /** The avatar's body is gone. */
  remove(id: string): void {
    const tag = this.tags.get(id);
    if (!tag) return;
    this.scene.remove(tag);
    tag.material.map?.dispose();
    tag.material.dispose();
    this.tags.delete(id);
  }

  /** Body ids of the avatars that have a name tag. */
  tagIds(): string[] {
    return [...this.tags.keys()];
  }
}

/** How much bigger than life the marks of an avatar at `at` are drawn for a camera at `eye`. */
function grow(at: Vector3, eye: Vector3): number {
  return Math.max(1, at.distanceTo(eye) / NEAR);
}

/** `avatar-<sessionId>` → the session id's first 6 characters. */
export function shortName(bodyId: string): string {
  return bodyId.replace(/^avatar-/, "").slice(0, 6);
}

function makeTag(text: string): Sprite {
  const canvas = document.createElement("canvas");
  canvas.width = 256;
  canvas.height = 64;
  const g = canvas.getContext("2d");
  if (g) {
    g.fillStyle = "rgba(12, 16, 20, 0.78)";
    g.beginPath();
    g.roundRect(2, 2, 252, 60, 14);
    g.fill();
    g.fillStyle = "#ffffff";
    g.font = "600 36px system-ui, sans-serif";
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.fillText(text, 128, 34);
  }
  const texture = new CanvasTexture(canvas);
  texture.colorSpace = SRGBColorSpace;
  const sprite = new Sprite(new SpriteMaterial({ map: texture, depthTest: false, transparent: true }));
  sprite.scale.set(TAG_WIDTH, TAG_HEIGHT, 1);
  sprite.renderOrder = 10;
  return sprite;
}
