import { MeshStandardMaterial } from "three";
import { BodyTypeCode, ShapeTypeCode, type World } from "../../../shared/engine/index.ts";
import { KIND_BOX } from "../../../shared/net/index.ts";
import { BodyTrack, createPose } from "../net/snapshot-buffer.ts";
import type { SceneView } from "../render/scene-view.ts";

/**
 * Draws a re-simulated world with the main client's SceneView: one mesh per body id, placed at the
 * world's exact pose (no interpolation: the viewer shows whole ticks). Bodies named by a divergence are
 * painted in a highlight material; a body that stops being highlighted, or whose shape changed under the
 * same id (a scenario reload), gets a fresh mesh from the scene view.
 */
export class ReplayScene {
  private readonly view: SceneView;
  private readonly tracks = new Map<string, BodyTrack>();
  /** Shape signature per id, to notice an id reused with another shape. */
  private readonly shapes = new Map<string, string>();
  private readonly seen = new Set<string>();
  private readonly highlighted = new Set<string>();
  private readonly pose = createPose();
  private readonly highlight = new MeshStandardMaterial({ color: 0xff2d2d, emissive: 0x8a0000, roughness: 0.4 });

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
      const box = b.shape[s] === ShapeTypeCode.BOX;
      const signature = `${b.type[s]}:${box ? 1 : 0}:${b.half[s3]}:${b.half[s3 + 1]}:${b.half[s3 + 2]}`;
      const wasHighlighted = this.highlighted.has(id);
      const hot = diverging.has(id);
      if (this.shapes.get(id) !== signature || (wasHighlighted && !hot)) {
        this.view.remove(id);
        this.shapes.set(id, signature);
        this.highlighted.delete(id);
        const track = new BodyTrack(id, 1);
        track.kind = b.type[s] | (box ? KIND_BOX : 0);
        track.hx = b.half[s3];
        track.hy = b.half[s3 + 1];
        track.hz = b.half[s3 + 2];
        this.tracks.set(id, track);
      }
      const entry = this.view.ensure(this.tracks.get(id)!);
      const p = this.pose;
      p.x = b.pos[s3];
      p.y = b.pos[s3 + 1];
      p.z = b.pos[s3 + 2];
      p.qx = b.rot[s4];
      p.qy = b.rot[s4 + 1];
      p.qz = b.rot[s4 + 2];
      p.qw = b.rot[s4 + 3];
      p.sleeping = b.type[s] === BodyTypeCode.DYNAMIC && b.sleeping[s] === 1;
      this.view.setPose(entry, p);
      if (hot) {
        entry.mesh.material = this.highlight;
        this.highlighted.add(id);
      }
    }
    for (const id of [...this.tracks.keys()]) {
      if (this.seen.has(id)) continue;
      this.view.remove(id);
      this.tracks.delete(id);
      this.shapes.delete(id);
      this.highlighted.delete(id);
    }
  }

  /** Ids currently drawn in the highlight material. */
  highlightedIds(): string[] {
    return [...this.highlighted].sort();
  }
}
