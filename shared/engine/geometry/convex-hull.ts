/**
 * A convex polyhedron as the narrow phase, raycasts and the client read it. Built once at body creation
 * (hull-builder.ts) and never changed, so it is shared by every reader.
 *
 * Faces are convex polygons (coplanar triangles merged: a box's 8 corners give 6 quads), their vertices
 * counter-clockwise seen from outside. `planes` holds each face's outward unit normal and offset:
 * n · x = d for every point x of the face, n · x <= d inside.
 */
export class ConvexHull {
  vertexCount = 0;
  /** x, y, z per vertex, in the frame the hull was built (or transformed) in. */
  vertices = new Float64Array(0);
  faceCount = 0;
  /** nx, ny, nz, d per face. */
  planes = new Float64Array(0);
  /** Face f's vertex indices are faceVertices[faceStart[f] .. faceStart[f + 1]). */
  faceStart = new Int32Array(1);
  faceVertices = new Int32Array(0);
  edgeCount = 0;
  /** Unique undirected edges: vertex indices (2 per edge). */
  edges = new Int32Array(0);
  /** The two faces each edge joins (2 per edge). */
  edgeFaces = new Int32Array(0);
  /** Largest distance of a vertex from the frame's origin. */
  boundRadius = 0;
}
