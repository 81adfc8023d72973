# The notes service in one container: the same runtime as `npm start` (API, web app, MCP, workers and
# the embedded database, object store and queue), with the local speech engines (Whisper through
# whisper.cpp; ffmpeg and pocketsphinx) and podcast voices (flite). docs/container.md.
#
#   docker build -t notes-service .        (podman: podman build --format docker -t notes-service .)
#   docker build --build-arg WHISPER_MODEL=base.en --build-arg VOICE_MODEL=wespeaker-resnet34-lm \
#     -t notes-service .                   (the models baked in: works offline)
#   docker compose up -d                   (compose.yaml)

# Build stage: the npm packages (from the lockfile) and the start-up bundle, so that the container
# starts from prepared files and never runs npm or apt-get. Its packages (1 GB with the development
# tools) stay here; the image gets the few the bundle loads at run time.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force
COPY . .
# bin/local-server.ts and every module it reaches, bundled by esbuild into
# node_modules/.cache/notes-local-server/ (scripts/local-server-bundle.mjs); at /app, as at run time,
# since the bundle's directory is named after the checkout's path.
RUN node scripts/local-server-bundle.mjs
# WHISPER_MODEL (e.g. base.en, small): fetched now, its SHA-256 checked, into /app/models, where the
# runtime looks before fetching one itself (docs/self-hosting.md, "Whisper-grade transcripts"). Empty: the image
# fetches the configured model into its volume on first start, or falls back to pocketsphinx offline.
ARG WHISPER_MODEL=""
RUN if [ -n "$WHISPER_MODEL" ]; then \
      NOTES_WHISPER_MODEL_DIR=/app/models node --import tsx src/local/cli/models.ts fetch "$WHISPER_MODEL"; \
    fi
# VOICE_MODEL (wespeaker-resnet34-lm): the diarizer's voice model, baked in the same way (docs/self-hosting.md,
# "Who said what"). Empty: fetched on first start, or voice statistics offline.
ARG VOICE_MODEL=""
RUN if [ -n "$VOICE_MODEL" ]; then \
      NOTES_WHISPER_MODEL_DIR=/app/models node --import tsx src/local/cli/models.ts fetch "$VOICE_MODEL"; \
    fi
# What the runtime needs, into /release: the checkout without node_modules, the bundle, and only the
# packages the bundle loads at run time (dynalite, esbuild, preact and their dependencies); the
# development tools stay in this stage (scripts/container/runtime-files.mjs).
RUN node scripts/container/runtime-files.mjs /release

# Run stage: Node 22 (what Lambda runs; Node 20 ended in April 2026), the Debian speech packages (and
# libgomp1, which whisper.cpp's prebuilt binding links), tini as PID 1, the app, and a user of its own.
FROM node:22-bookworm-slim
ARG WHISPER_MODEL=
# Debian's ffmpeg depends, through its video and display libraries, on Mesa's OpenGL, Vulkan and video
# drivers and the LLVM they are compiled with (about 160 MB). No binary links them: they are drivers,
# loaded (dlopen) only to draw or to decode video on a GPU, which audio never does, so they are
# removed (dpkg --force-depends: nothing in the image installs packages afterwards), and ffmpeg is
# run once to show it still decodes. The .deb files apt downloaded go too (the official base images
# clean them by configuration; a stand-in base may not).
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    ffmpeg pocketsphinx pocketsphinx-en-us flite libgomp1 tini \
  && for unused in libgl1-mesa-dri libglx-mesa0 mesa-vulkan-drivers mesa-va-drivers mesa-vdpau-drivers \
      libllvm15 libz3-4; do \
      if dpkg-query -W -f='${Status}' "$unused" 2>/dev/null | grep -q 'ok installed'; then \
        dpkg --purge --force-depends "$unused" >/dev/null || exit 1; \
      fi; \
    done \
  && ffmpeg -hide_banner -loglevel error -f lavfi -i sine=frequency=440:duration=1 -ac 1 -ar 16000 -f s16le - >/dev/null \
  && apt-get clean \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/*
# A fixed UID, so a bind-mounted data directory can be given to it (chown 10001).
RUN groupadd --gid 10001 notes \
  && useradd --uid 10001 --gid notes --no-create-home --home-dir /data --shell /usr/sbin/nologin notes \
  && mkdir -p /data && chown notes:notes /data && chmod 0700 /data
WORKDIR /app
# The app stays root's (the service cannot change its own code); only the bundle's in-use/
# directory is the user's, where each running process marks the build it uses (in-use/<pid>). The
# build's own marks are removed: a process of the container with the same PID as the build had (with
# tini as PID 1, Node is a small PID too) could not write over a mark root left.
COPY --from=build /release /app
RUN find /app/node_modules/.cache/notes-local-server -type d -name in-use \
      -exec sh -c 'rm -f "$1"/* && chown notes:notes "$1"' marks {} \;

# The baked model is the one used (else the service's default, base.en, fetched into /data/models).
ENV NOTES_WHISPER_MODEL=${WHISPER_MODEL:-base.en}
ENV PORT=8787 \
    NOTES_STORAGE_PORT=8788 \
    NOTES_DATA_DIR=/data \
    NOTES_LISTEN_HOST=0.0.0.0 \
    NOTES_DRAIN_SECONDS=8 \
    NOTES_LOG_FORMAT=json
# NOTES_LOG_FORMAT=json: one JSON object per log line, for the log driver (a terminal gets text lines).
# NOTES_DRAIN_SECONDS=8: running work gets 8 s to finish on `docker stop` (10 s before it kills);
# what is still running then goes back to the queue and resumes on the next start. compose.yaml
# allows longer.
VOLUME ["/data"]
EXPOSE 8787 8788
USER notes:notes
STOPSIGNAL SIGTERM
# /readyz: the emulators answer, the disk is above its reserve, the speech engines are found. Node
# itself makes the request: the image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini is PID 1: it passes SIGTERM to Node (which drains, then exits 0; tini exits with its code) and
# reaps every orphaned process (a recogniser's child whose parent was killed), which Node as PID 1
# would leave as zombies. The same Node flags as package.json's `start` script (scripts/start.mjs
# says why).
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--max-semi-space-size=4", "scripts/start.mjs"]
