# syntax=docker/dockerfile:1
# thingdesk's container image. Three stages: `build` runs what `npm start` and CI run (npm ci, npm run build),
# `deps` installs the production dependencies alone (npm ci --omit=dev), and the image takes dist/ and those.
# Build: docker build -t thingdesk .   Run: docker run -p 8080:8080 -p 1883:1883 -v thingdesk-data:/app/data thingdesk
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS toolchain
# Native modules: on Node 22 and 24 the platform loads better-sqlite3 13 and @node-rs/argon2, both Node-API builds
# shipped inside their packages. better-sqlite3 12 (for Node 20 only, src/store/sqlite-binding.ts) still installs
# and compiles here when its prebuilt binary cannot be fetched, which needs Python, make and a C++ compiler.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./

FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY studio ./studio
COPY scripts/build-changed.mjs ./scripts/
RUN npm run build

FROM toolchain AS deps
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# `thingdesk` on the PATH (docker compose exec thingdesk thingdesk org create ...); bin/thingdesk.js runs dist/ here.
# The SQLite store (the default DATABASE_URL file:./data/thingdesk.db) lives in a volume the node user owns.
RUN ln -s /app/bin/thingdesk.js /usr/local/bin/thingdesk \
  && mkdir -p /app/data \
  && chown node:node /app/data
VOLUME ["/app/data"]
USER node
# HTTP (REST, GraphQL, /healthz, /metrics unless METRICS_PORT), the embedded MQTT broker (unused with MQTT_URL).
EXPOSE 8080 1883
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 8080}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/thingdesk.js"]
CMD ["serve"]
