#!/bin/sh
# The image's build steps, run by examples/replicas/Dockerfile in its copy of the repository and
# by the suite (test/image.test.ts) in one of its own: builds dist/ (with the code cache the build
# primes), drops the development dependencies from this copy's node_modules, and puts in OUT what
# `npm start` and `npm run keys` need, nothing else. Run from a copy's root, after `npm ci`: it
# prunes that copy.
set -eu
out="$1"
npm run --silent build
npm prune --omit=dev --no-audit --no-fund --silent
mkdir -p "$out/scripts" "$out/data"
# -p: the code cache is keyed by the bundle's time, among others (scripts/load-bundle.mjs).
cp -Rp dist schema src package.json package-lock.json tsconfig.json "$out/"
# Hard links where the file system allows (this copy is thrown away), else a copy.
cp -Rpl node_modules "$out/" 2>/dev/null || cp -Rp node_modules "$out/"
cp data/*.json "$out/data/"
cp scripts/start.mjs "$out/scripts/"
