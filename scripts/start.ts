/**
 * `npm start`: one server process on PORT (default 2567). Nothing needs building: Node 24 runs the
 * TypeScript sources directly (type stripping), so this only hands over to the server entry.
 */
await import("../server/main.ts");
