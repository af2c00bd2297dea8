import type { TriangleSource } from "./triangle-source.ts";
import { isActiveEdge } from "./trimesh.ts";

/**
 * Neighbour table for the active-edge pass. Per triangle k (0, 1) and edge e (0..2): the row and column
 * offsets of the cell holding the triangle across the edge (both 0: the same cell), then the offsets of
 * that triangle's far corner from the cell's corner (r, c).
 */
const NEIGHBOUR = [
  // k = 0: A, D, B. e0 A-D (diagonal), e1 D-B (x of column c+1), e2 B-A (z of row r).
  [0, 0, 1, 0],
  [0, 1, 1, 2],
  [-1, 0, -1, 0],
  // k = 1: A, C, D. e0 A-C (x of column c), e1 C-D (z of row r+1), e2 D-A (diagonal).
  [0, -1, 0, -1],
  [1, 0, 2, 1],
  [0, 0, 0, 1],
];
/** Corner offsets (row, column) of each triangle's v0, v1, v2 within its cell. */
const CORNERS = [
  [0, 0, 1, 1, 0, 1],
  [0, 0, 1, 0, 1, 1],
];

/** Creation-time scratch for `isActiveEdge`. */
const edgeCorners = new Float64Array(12);

/**
 * A regular grid of heights (terrain). Samples are row-major: row r runs along z, column c along x;
 * sample (r, c) sits at x = -sizeX/2 + c * sizeX/(cols-1), z = -sizeZ/2 + r * sizeZ/(rows-1),
 * y = heights[r * cols + c].
 *
 * Cell (r, c), r < rows-1, c < cols-1, has corners A = (r, c), B = (r, c+1), C = (r+1, c), D = (r+1, c+1)
 * and is split along the diagonal A-D (from its lowest-x lowest-z corner to its highest-x highest-z
 * corner) into triangle 2·(r·(cols-1) + c) + 0 = (A, D, B), the half on the low-z / high-x side, and
 * triangle ... + 1 = (A, C, D), the half on the high-z / low-x side, both counter-clockwise seen from +y
 * so their normals point up.
 */
export class HeightField implements TriangleSource {
  readonly bounds = new Float64Array(6);
  readonly triangleCount: number;
  readonly rows: number;
  readonly cols: number;
  readonly sizeX: number;
  readonly sizeZ: number;
  readonly heights: Float64Array;
  /** Sample spacing along x and z. */
  readonly cellX: number;
  readonly cellZ: number;
  /** Per triangle: active-edge bits as `triangle` returns them. */
  readonly activeEdges: Uint8Array;

  constructor(heights: readonly number[], rows: number, cols: number, sizeX: number, sizeZ: number) {
    if (!(rows >= 2 && cols >= 2 && heights.length === rows * cols && sizeX > 0 && sizeZ > 0)) {
      throw new Error("height field needs at least 2x2 samples, rows*cols heights and positive sizes");
    }
    this.rows = rows;
    this.cols = cols;
    this.sizeX = sizeX;
    this.sizeZ = sizeZ;
    this.cellX = sizeX / (cols - 1);
    this.cellZ = sizeZ / (rows - 1);
    this.heights = Float64Array.from(heights);
    this.triangleCount = 2 * (rows - 1) * (cols - 1);
    let minY = this.heights[0];
    let maxY = minY;
    for (let i = 1; i < this.heights.length; i++) {
      minY = Math.min(minY, this.heights[i]);
      maxY = Math.max(maxY, this.heights[i]);
    }
    this.bounds[0] = this.columnX(0);
    this.bounds[1] = minY;
    this.bounds[2] = this.rowZ(0);
    this.bounds[3] = this.columnX(cols - 1);
    this.bounds[4] = maxY;
    this.bounds[5] = this.rowZ(rows - 1);
    this.activeEdges = new Uint8Array(this.triangleCount);
    this.computeActiveEdges();
  }

  /** Local x of column c. Every reader uses this expression, so shared corners agree to the bit. */
  columnX(c: number): number {
    return -0.5 * this.sizeX + c * this.cellX;
  }

  rowZ(r: number): number {
    return -0.5 * this.sizeZ + r * this.cellZ;
  }

  /** The column whose cell holds x, clamped to the cells (0 .. cols-2). */
  cellColumn(x: number): number {
    const c = Math.floor((x + 0.5 * this.sizeX) / this.cellX);
    return c < 0 ? 0 : c > this.cols - 2 ? this.cols - 2 : c;
  }

  cellRow(z: number): number {
    const r = Math.floor((z + 0.5 * this.sizeZ) / this.cellZ);
    return r < 0 ? 0 : r > this.rows - 2 ? this.rows - 2 : r;
  }

  /**
   * The surface height at local (x, z), on the triangles as `triangle` reports them (not a bilinear
   * patch); NaN outside the field.
   */
  heightAt(x: number, z: number): number {
    const b = this.bounds;
    if (!(x >= b[0] && x <= b[3] && z >= b[2] && z <= b[5])) return Number.NaN;
    const c = this.cellColumn(x);
    const r = this.cellRow(z);
    const fx = (x - this.columnX(c)) / this.cellX;
    const fz = (z - this.rowZ(r)) / this.cellZ;
    const h = this.heights;
    const i = r * this.cols + c;
    const hA = h[i];
    const hB = h[i + 1];
    const hC = h[i + this.cols];
    const hD = h[i + this.cols + 1];
    // Planes through A, B, D (fx >= fz) and A, C, D.
    return fx >= fz ? hA + fx * (hB - hA) + fz * (hD - hB) : hA + fz * (hC - hA) + fx * (hD - hC);
  }

  queryTriangles(lo: Float64Array, hi: Float64Array, out: Int32Array): number {
    const b = this.bounds;
    const cap = out.length;
    // Written so that a NaN coordinate rejects.
    if (cap === 0 || !(lo[0] <= b[3] && hi[0] >= b[0] && lo[2] <= b[5] && hi[2] >= b[2] && lo[1] <= b[4] && hi[1] >= b[1])) {
      return 0;
    }
    // Cells whose x range [columnX(c), columnX(c+1)] touches [lo.x, hi.x]; the division only guesses,
    // the comparisons against the exact corner coordinates decide (touching counts, like the bounds).
    // columnX / rowZ are written out: a call returning a double allocates when V8 does not inline it.
    const x0 = -0.5 * this.sizeX;
    const z0 = -0.5 * this.sizeZ;
    const cellX = this.cellX;
    const cellZ = this.cellZ;
    const lastColumn = this.cols - 2;
    const lastRow = this.rows - 2;
    let c0 = Math.min(lastColumn, Math.max(0, Math.floor((lo[0] - x0) / cellX)));
    while (c0 > 0 && x0 + c0 * cellX >= lo[0]) c0--;
    while (c0 < lastColumn && x0 + (c0 + 1) * cellX < lo[0]) c0++;
    let c1 = Math.min(lastColumn, Math.max(0, Math.floor((hi[0] - x0) / cellX)));
    while (c1 < lastColumn && x0 + (c1 + 1) * cellX <= hi[0]) c1++;
    while (c1 > 0 && x0 + c1 * cellX > hi[0]) c1--;
    let r0 = Math.min(lastRow, Math.max(0, Math.floor((lo[2] - z0) / cellZ)));
    while (r0 > 0 && z0 + r0 * cellZ >= lo[2]) r0--;
    while (r0 < lastRow && z0 + (r0 + 1) * cellZ < lo[2]) r0++;
    let r1 = Math.min(lastRow, Math.max(0, Math.floor((hi[2] - z0) / cellZ)));
    while (r1 < lastRow && z0 + (r1 + 1) * cellZ <= hi[2]) r1++;
    while (r1 > 0 && z0 + r1 * cellZ > hi[2]) r1--;
    const h = this.heights;
    const cols = this.cols;
    const ly = lo[1];
    const hy = hi[1];
    let n = 0;
    // Rows, then columns, then the two halves: ids come out ascending.
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        const i = r * cols + c;
        const hA = h[i];
        const hB = h[i + 1];
        const hC = h[i + cols];
        const hD = h[i + cols + 1];
        const id = 2 * (r * (cols - 1) + c);
        // Triangle 0 spans A, D, B; triangle 1 spans A, C, D.
        const adMin = Math.min(hA, hD);
        const adMax = Math.max(hA, hD);
        if (Math.min(adMin, hB) <= hy && Math.max(adMax, hB) >= ly) {
          out[n++] = id;
          if (n === cap) return n;
        }
        if (Math.min(adMin, hC) <= hy && Math.max(adMax, hC) >= ly) {
          out[n++] = id + 1;
          if (n === cap) return n;
        }
      }
    }
    return n;
  }

  triangle(id: number, out: Float64Array, o: number): number {
    const cell = id >> 1;
    const r = (cell / (this.cols - 1)) | 0;
    const c = cell - r * (this.cols - 1);
    // Same expressions as columnX / rowZ, written out: a call returning a double allocates when V8
    // does not inline it.
    const x0 = -0.5 * this.sizeX + c * this.cellX;
    const x1 = -0.5 * this.sizeX + (c + 1) * this.cellX;
    const z0 = -0.5 * this.sizeZ + r * this.cellZ;
    const z1 = -0.5 * this.sizeZ + (r + 1) * this.cellZ;
    const h = this.heights;
    const i = r * this.cols + c;
    // v0 = A for both halves.
    out[o] = x0;
    out[o + 1] = h[i];
    out[o + 2] = z0;
    if ((id & 1) === 0) {
      // A, D, B
      out[o + 3] = x1;
      out[o + 4] = h[i + this.cols + 1];
      out[o + 5] = z1;
      out[o + 6] = x1;
      out[o + 7] = h[i + 1];
      out[o + 8] = z0;
    } else {
      // A, C, D
      out[o + 3] = x0;
      out[o + 4] = h[i + this.cols];
      out[o + 5] = z1;
      out[o + 6] = x1;
      out[o + 7] = h[i + this.cols + 1];
      out[o + 8] = z1;
    }
    return this.activeEdges[id];
  }

  private computeActiveEdges(): void {
    const cellRows = this.rows - 1;
    const cellCols = this.cols - 1;
    for (let r = 0; r < cellRows; r++) {
      for (let c = 0; c < cellCols; c++) {
        for (let k = 0; k < 2; k++) {
          const id = 2 * (r * cellCols + c) + k;
          const corners = CORNERS[k];
          let bits = 0;
          for (let e = 0; e < 3; e++) {
            const [dr, dc, fr, fc] = NEIGHBOUR[k * 3 + e];
            const nr = r + dr;
            const nc = c + dc;
            if (nr < 0 || nc < 0 || nr >= cellRows || nc >= cellCols) {
              bits |= 1 << e; // the field's outer border
              continue;
            }
            for (let j = 0; j < 3; j++) {
              const v = (e + j) % 3;
              this.copySample(r + corners[v * 2], c + corners[v * 2 + 1], j * 3);
            }
            this.copySample(r + fr, c + fc, 9);
            if (isActiveEdge(edgeCorners)) bits |= 1 << e;
          }
          this.activeEdges[id] = bits;
        }
      }
    }
  }

  private copySample(r: number, c: number, o: number): void {
    edgeCorners[o] = this.columnX(c);
    edgeCorners[o + 1] = this.heights[r * this.cols + c];
    edgeCorners[o + 2] = this.rowZ(r);
  }
}
