import { MeshStandardMaterial } from "three";
import { BodyTypeCode, type JointInfo, type ReadonlyNumberArray, type ShapeDef, type World } from "../../../shared/engine/index.ts";
import { type JointState, jointStateOf, kindOf, sizedByHalfExtents } from "../../../shared/net/index.ts";
import { JointBuffer } from "../net/joint-buffer.ts";
import { BodyTrack, createPose } from "../net/snapshot-buffer.ts";
import type { SceneView } from "../render/scene-view.ts";

/**
 * Draws a re-simulated world with the main client's SceneView: one mesh per body id, placed at the
 * world's exact pose (no interpolation: the viewer shows whole ticks). Bodies named by a divergence are
 * painted in a highlight material; a body that stops being highlighted, or whose shape changed under the
 * same id (a scenario reload), gets a fresh mesh from the scene view. Joints are drawn as the live client
 * draws them (JointLines), from the world's joints, read again only when its jointsVersion changes.
 */
export class ReplayScene {
  private readonly view: SceneView;
  private readonly tracks = new Map<string, BodyTrack>();
  /** Shape signature per id, to notice an id reused with another shape. */
  private readonly shapes = new Map<string, string>();
  private readonly seen = new Set<string>();
  private readonly highlighted = new Set<string>();
  private readonly pose = createPose();
  /** Reference pose of a slot whose centre of mass lies elsewhere (px py pz qx qy qz qw). */
  private readonly reference = new Float64Array(7);
  /** Shape definitions of the bodies drawn that are not spheres or boxes, by id. */
  private readonly definitions = new Map<string, ShapeDef>();
  private readonly highlight = new MeshStandardMaterial({ color: 0xff2d2d, emissive: 0x8a0000, roughness: 0.4 });
  /** The world's joints as the wire would carry them, by id, and what each was read from (jointSignature). */
  private readonly jointStates = new Map<string, JointState>();
  private readonly jointSignatures = new Map<string, string>();
  private readonly joints = new JointBuffer();
  private jointWorld: World | null = null;
  private jointsVersion = Number.NaN;

  constructor(view: SceneView) {
    this.view = view;
    view.follow = false;
  }

  /** Shows `world`; bodies in `diverging` are highlighted. */
  draw(world: World, diverging: ReadonlySet<string>): void {
    const b = world.view();
    this.seen.clear();
    for (let s = 0; s < b.slotCount; s++) {
      if (b.alive[s] === 0) continue;
      const id = b.idOf(s)!;
      this.seen.add(id);
      const s3 = s * 3;
      const s4 = s * 4;
      const sized = sizedByHalfExtents(b.shape[s]);
      // Spheres and boxes by kind and size (cheap, every frame); other shapes by their definition, read
      // from the world only when the kind or handle changed.
      const signature = `${kindOf(b.type[s], b.shape[s], b.sensor[s])}:${sized ? `${b.half[s3]}:${b.half[s3 + 1]}:${b.half[s3 + 2]}` : b.handleOf(s)}`;
      const wasHighlighted = this.highlighted.has(id);
      const hot = diverging.has(id);
      if (this.shapes.get(id) !== signature || (wasHighlighted && !hot)) {
        this.view.remove(id);
        this.shapes.set(id, signature);
        this.highlighted.delete(id);
        const track = new BodyTrack(id, 1);
        track.kind = kindOf(b.type[s], b.shape[s], b.sensor[s]);
        if (sized) {
          track.hx = b.half[s3];
          track.hy = b.half[s3 + 1];
          track.hz = b.half[s3 + 2];
          this.definitions.delete(id);
        } else {
          this.definitions.set(id, world.getShape(b.handleOf(s)));
        }
        this.tracks.set(id, track);
      }
      const entry = this.view.ensure(this.tracks.get(id)!, this.definitions.get(id));
      // Drawn at the reference frame (the shape's origin); the view's arrays hold the centre of mass.
      let pos: ReadonlyNumberArray = b.pos;
      let rot: ReadonlyNumberArray = b.rot;
      let o3 = s3;
      let o4 = s4;
      if (b.hasOffset[s] === 1) {
        b.referencePose(s, this.reference, 0);
        pos = rot = this.reference;
        o3 = 0;
        o4 = 3;
      }
      const p = this.pose;
      p.x = pos[o3];
      p.y = pos[o3 + 1];
      p.z = pos[o3 + 2];
      p.qx = rot[o4];
      p.qy = rot[o4 + 1];
      p.qz = rot[o4 + 2];
      p.qw = rot[o4 + 3];
      p.sleeping = b.type[s] === BodyTypeCode.DYNAMIC && b.sleeping[s] === 1;
      this.view.setPose(entry, p);
      if (hot) {
        this.view.paint(entry, this.highlight);
        this.highlighted.add(id);
      }
    }
    for (const id of [...this.tracks.keys()]) {
      if (this.seen.has(id)) continue;
      this.view.remove(id);
      this.tracks.delete(id);
      this.shapes.delete(id);
      this.definitions.delete(id);
      this.highlighted.delete(id);
    }
    this.drawJoints(world);
  }

  /**
   * The viewer shows whole ticks with no timeline of its own, so every joint lives at time 0: a new one is
   * shown at once, a gone one is pruned at once (JointBuffer's visibleFrom / removedAt).
   */
  private drawJoints(world: World): void {
    if (world !== this.jointWorld || world.jointsVersion !== this.jointsVersion) {
      this.jointWorld = world;
      this.jointsVersion = world.jointsVersion;
      const present = new Set<string>();
      world.forEachJoint((info) => {
        present.add(info.id);
        // By content, not handle: a restored or reloaded world may give another joint the same id and handle.
        const signature = jointSignature(info);
        if (this.jointSignatures.get(info.id) === signature) return;
        this.jointSignatures.set(info.id, signature);
        this.jointStates.set(info.id, jointStateOf(info));
      });
      for (const id of [...this.jointStates.keys()]) {
        if (present.has(id)) continue;
        this.jointStates.delete(id);
        this.jointSignatures.delete(id);
      }
    }
    this.joints.ingest(this.jointStates, 0);
    this.joints.prune(0);
    this.view.drawJoints(this.joints, 0);
  }

  /** Ids currently drawn in the highlight material. */
  highlightedIds(): string[] {
    return [...this.highlighted].sort();
  }
}

/** Everything of a joint the viewer draws. */
function jointSignature(j: JointInfo): string {
  return `${j.type}|${j.bodyA}|${j.bodyB ?? ""}|${j.localAnchorA.join()}|${j.localAnchorB.join()}|${j.localAxisA.join()}`;
}
