import { join } from "node:path";
import { defineConfig, type Plugin } from "vite";

/**
 * The browser client. `npm run build` writes client/dist, which the game server serves at `/`
 * (`npm start` builds it first when it is missing or older than the sources). `npm run dev` runs the
 * game server and this config's dev server in one process (scripts/start.ts --dev): the admin routes are
 * proxied, and the SDK talks to the game server directly (matchmaking answers CORS, WebSockets need none).
 */
const gameServer = process.env.GAME_SERVER ?? `http://127.0.0.1:${process.env.PORT ?? 2567}`;

/**
 * The dev server's counterpart of the game server's `/replay/` routes: `/replay/` and `/replay/<roomId>`
 * get the replay viewer page (a build serves client/dist/replay.html there, server/app.ts).
 */
function replayPages(): Plugin {
  return {
    name: "replay-pages",
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        if (req.url && /^\/replay(\/[A-Za-z0-9_-]*)?\/?(\?.*)?$/.test(req.url)) req.url = "/replay.html";
        next();
      });
    },
  };
}

export default defineConfig(({ command }) => ({
  root: import.meta.dirname,
  base: "./",
  define: {
    // Only the dev server points the SDK elsewhere; a build always talks to the origin that served it.
    "import.meta.env.VITE_GAME_SERVER": JSON.stringify(command === "serve" ? gameServer : ""),
  },
  plugins: [replayPages()],
  // Game modules import the game API by the package's name (package.json "exports"); the bundle resolves it here.
  resolve: { alias: { "physics-rooms/game": join(import.meta.dirname, "..", "shared", "game", "index.ts") } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Two pages: the game client (index.html) and the replay viewer (replay.html, served at /replay/).
    rollupOptions: { input: { main: join(import.meta.dirname, "index.html"), replay: join(import.meta.dirname, "replay.html") } },
    // three.js alone is ~600 kB minified; one bundle is fine for this app.
    chunkSizeWarningLimit: 1500,
  },
  server: {
    host: "127.0.0.1",
    port: Number(process.env.VITE_PORT ?? 5173),
    proxy: Object.fromEntries(["/rooms", "/scenarios", "/health", "/ready", "/metrics", "/matchmake"].map((p) => [p, gameServer])),
  },
}));
