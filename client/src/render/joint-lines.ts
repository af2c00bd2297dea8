import { BufferAttribute, BufferGeometry, Color, LineBasicMaterial, LineSegments, type Object3D } from "three";
import { JointTypeCode } from "../../../shared/engine/index.ts";
import { jointHasAxis } from "../../../shared/net/index.ts";
import type { JointBuffer, JointTrack } from "../net/joint-buffer.ts";

/** Half the length of the segment drawn along a hinge's or slider's axis, metres. */
export const AXIS_HALF_LENGTH = 0.35;
/** Segments per joint at most: the link between the anchors, an arm from each body to its anchor, the axis. */
const MAX_SEGMENTS = 4;

/** The link between the two anchors: what stretches when a joint is pulled apart, a rope's length. */
const LINK_COLOR = new Color(0xffd23f);
/** From a body's origin to its anchor: shows where a ball or hinge (whose anchors coincide) holds each body. */
const ARM_COLOR = new Color(0xe8eef2);
const AXIS_COLOR = new Color(0xff4fd8);

/** The pose of a drawn body as the joint lines read it (a body's three.js object). */
export type PosedObject = Pick<Object3D, "position" | "quaternion" | "visible">;

/**
 * Every joint drawn as line segments in one LineSegments object (one draw call): a line between its two
 * world anchors, a thinner-looking arm from each body's origin to its anchor, and for hinges and sliders a
 * short segment along the axis through A's anchor. The world anchors come from the bodies' objects as
 * drawn this frame (interpolated, or predicted), anchor = position + rotation × local anchor, so the
 * lines move with the bodies exactly. Lines are drawn over the bodies (no depth test): a ball joint
 * inside two capsules is still seen.
 *
 * Per frame it writes into preallocated vertex arrays; they grow (doubling) only when a room has more
 * joints than ever before. `drawnIds` / `firstVertex` say which joint the vertices belong to (tests).
 */
export class JointLines {
  readonly object: LineSegments;
  /** Joints drawn by the last update, and the first vertex of each (its link's start). */
  drawn = 0;
  readonly drawnIds: string[] = [];
  private firstVertex = new Int32Array(0);
  private positions = new Float32Array(0);
  private colors = new Float32Array(0);
  private geometry = new BufferGeometry();
  private vertices = 0;

  constructor() {
    const material = new LineBasicMaterial({ vertexColors: true, depthTest: false, depthWrite: false, transparent: true, opacity: 0.9 });
    this.object = new LineSegments(this.geometry, material);
    this.ensureCapacity(16);
    this.object.name = "joints";
    // Drawn after the bodies; the bounds change every frame, and the lines are never worth culling.
    this.object.renderOrder = 2;
    this.object.frustumCulled = false;
  }

  /**
   * Places every joint visible at `renderTime` from the objects of its bodies (`objects`, by body id); a
   * joint whose body is not drawn (not yet arrived, or hidden) is left out this frame.
   */
  update(buffer: JointBuffer, renderTime: number, objects: ReadonlyMap<string, { mesh: PosedObject }>): void {
    // A room without joints: nothing to write or upload, frame after frame.
    if (buffer.tracks.length === 0 && this.vertices === 0) return;
    if (buffer.tracks.length > this.firstVertex.length) this.ensureCapacity(buffer.tracks.length);
    this.vertices = 0;
    let n = 0;
    for (const track of buffer.tracks) {
      if (!track.visibleAt(renderTime)) continue;
      const a = objects.get(track.bodyA)?.mesh;
      if (a === undefined || !a.visible) continue;
      let b: PosedObject | undefined;
      if (track.bodyB !== "") {
        b = objects.get(track.bodyB)?.mesh;
        if (b === undefined || !b.visible) continue;
      }
      this.drawnIds[n] = track.id;
      this.firstVertex[n] = this.vertices;
      n++;
      this.writeJoint(track, a, b);
    }
    this.drawn = n;
    this.drawnIds.length = n;
    this.geometry.setDrawRange(0, this.vertices);
    (this.geometry.getAttribute("position") as BufferAttribute).needsUpdate = true;
    (this.geometry.getAttribute("color") as BufferAttribute).needsUpdate = true;
  }

  /**
   * The drawn vertices of joint `i` of the last update (0..drawn-1), as world points: [link start (A's
   * anchor), link end (B's anchor), then arms and axis]. For tests and the console; allocates.
   */
  verticesOf(i: number): number[][] {
    const from = this.firstVertex[i];
    const to = i + 1 < this.drawn ? this.firstVertex[i + 1] : this.vertices;
    const out: number[][] = [];
    for (let v = from; v < to; v++) out.push([this.positions[v * 3], this.positions[v * 3 + 1], this.positions[v * 3 + 2]]);
    return out;
  }

  private writeJoint(track: JointTrack, a: PosedObject, b: PosedObject | undefined): void {
    const start = this.vertices;
    // The link: vertex start = A's anchor, start + 1 = B's anchor (read back below for the arms and axis).
    this.pointOn(a, track.anchorA[0], track.anchorA[1], track.anchorA[2], LINK_COLOR);
    if (b === undefined) this.point(track.anchorB[0], track.anchorB[1], track.anchorB[2], LINK_COLOR);
    else this.pointOn(b, track.anchorB[0], track.anchorB[1], track.anchorB[2], LINK_COLOR);
    const p = this.positions;
    const sa = start * 3;
    this.point(a.position.x, a.position.y, a.position.z, ARM_COLOR);
    this.point(p[sa], p[sa + 1], p[sa + 2], ARM_COLOR);
    if (b !== undefined) {
      this.point(b.position.x, b.position.y, b.position.z, ARM_COLOR);
      this.point(p[sa + 3], p[sa + 4], p[sa + 5], ARM_COLOR);
    }
    if (jointHasAxis(track.type)) {
      // The axis turns with A: rotate it by A's orientation (no translation).
      const ax = track.axis[0];
      const ay = track.axis[1];
      const az = track.axis[2];
      const q = a.quaternion;
      const tx = 2 * (q.y * az - q.z * ay);
      const ty = 2 * (q.z * ax - q.x * az);
      const tz = 2 * (q.x * ay - q.y * ax);
      const h = track.type === JointTypeCode.SLIDER ? 2 * AXIS_HALF_LENGTH : AXIS_HALF_LENGTH;
      const ux = (ax + q.w * tx + (q.y * tz - q.z * ty)) * h;
      const uy = (ay + q.w * ty + (q.z * tx - q.x * tz)) * h;
      const uz = (az + q.w * tz + (q.x * ty - q.y * tx)) * h;
      this.point(p[sa] - ux, p[sa + 1] - uy, p[sa + 2] - uz, AXIS_COLOR);
      this.point(p[sa] + ux, p[sa + 1] + uy, p[sa + 2] + uz, AXIS_COLOR);
    }
  }

  /** Appends the world point of (x, y, z) in `o`'s frame: position + rotation × (x, y, z). */
  private pointOn(o: PosedObject, x: number, y: number, z: number, color: Color): void {
    const q = o.quaternion;
    // v + w t + q.xyz × t with t = 2 q.xyz × v (rotation of a vector by a unit quaternion).
    const tx = 2 * (q.y * z - q.z * y);
    const ty = 2 * (q.z * x - q.x * z);
    const tz = 2 * (q.x * y - q.y * x);
    this.point(
      o.position.x + x + q.w * tx + (q.y * tz - q.z * ty),
      o.position.y + y + q.w * ty + (q.z * tx - q.x * tz),
      o.position.z + z + q.w * tz + (q.x * ty - q.y * tx),
      color,
    );
  }

  private point(x: number, y: number, z: number, color: Color): void {
    const o = this.vertices * 3;
    this.positions[o] = x;
    this.positions[o + 1] = y;
    this.positions[o + 2] = z;
    this.colors[o] = color.r;
    this.colors[o + 1] = color.g;
    this.colors[o + 2] = color.b;
    this.vertices++;
  }

  /** Room for `joints` joints (and their segments), doubling: new arrays only when a room outgrows them. */
  private ensureCapacity(joints: number): void {
    let cap = Math.max(16, this.firstVertex.length);
    while (cap < joints) cap *= 2;
    if (cap === this.firstVertex.length) return;
    this.firstVertex = new Int32Array(cap);
    this.positions = new Float32Array(cap * MAX_SEGMENTS * 2 * 3);
    this.colors = new Float32Array(cap * MAX_SEGMENTS * 2 * 3);
    // A fresh geometry rather than bigger attributes on the drawn one (whose GPU buffers have their size).
    this.geometry.dispose();
    this.geometry = new BufferGeometry();
    this.geometry.setAttribute("position", new BufferAttribute(this.positions, 3));
    this.geometry.setAttribute("color", new BufferAttribute(this.colors, 3));
    this.object.geometry = this.geometry;
  }
}
