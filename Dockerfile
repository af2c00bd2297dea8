# syntax=docker/dockerfile:1
# The physics room server. Node 24 runs the TypeScript sources directly (type stripping), so the only
# build step is the browser client (vite → client/dist, served by the server at /).
#
#   docker build -t physics-rooms-server .
#   docker compose up          (Redis + two replicas + nginx, see docker-compose.yml)

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Dev dependencies are needed for the client build; npm ci runs the approved install scripts only
# (package.json#allowScripts), and the `node` devDependency is a registry package like any other.
RUN npm ci
COPY . .
RUN npm run build
RUN npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=2567 \
    REPLAY_DIR=/data/replays
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data/replays && chown -R node:node /data
USER node
VOLUME ["/data/replays"]
EXPOSE 2567
# /ready is 200 once the matchmaker accepts rooms (503 while starting or shutting down).
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||2567)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The server entry itself (not `npm start`, which would try to rebuild the client): it handles SIGTERM
# (no new joins, clients get 4001, replays closed, exit 0 within SHUTDOWN_TIMEOUT_MS).
CMD ["node", "server/main.ts"]
