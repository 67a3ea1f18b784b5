#!/bin/sh
# run-servers.sh — start N Playwright browser servers on 127.0.0.1 that
# launch this machine's Chromium (Debian's /usr/bin/chromium-headless-shell,
# as a local crawl does), for
# `crawl --browser-endpoint` on one machine. It is what the two-server test
# of package pipeline does by hand. Ctrl-C stops them all.
#
# Usage: deploy/local/run-servers.sh [N [FIRST-PORT]]     (default 2 3000)
#
# Needs `make setup` (the Playwright driver: node and playwright-core, the
# same 1.64.x version as the crawl's client; a server of another minor
# version refuses the client with HTTP 428). A run-server ignores the
# client's executable path and launches the browser its browsers.json names
# from PLAYWRIGHT_BROWSERS_PATH, so this script lays out a folder that
# links those names to $CHROMIUM.
set -eu

N=${1:-2}
PORT=${2:-3000}
DRIVER=${PLAYWRIGHT_DRIVER_PATH:-$HOME/.cache/ms-playwright-go/1.64.1}
NODE=${PLAYWRIGHT_NODEJS_PATH:-$DRIVER/node}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium-headless-shell}

for f in "$NODE" "$DRIVER/package/cli.js" "$CHROMIUM"; do
	if [ ! -e "$f" ]; then
		echo "run-servers: $f is missing (run make setup)" >&2
		exit 1
	fi
done

BROWSERS=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait
	rm -rf "$BROWSERS"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# chromium-<rev>/chrome-linux64/chrome and
# chromium_headless_shell-<rev>/chrome-headless-shell-linux64/chrome-headless-shell
# (headless launches use the latter), both linked to $CHROMIUM.
"$NODE" - "$DRIVER/package/browsers.json" "$BROWSERS" "$CHROMIUM" <<'JS'
const fs = require('fs'), path = require('path');
const [json, dir, chromium] = process.argv.slice(2);
const arch = process.arch === 'arm64' ? 'linux-arm64' : 'linux64';
const exe = {
  'chromium': ['chrome-' + arch, 'chrome'],
  'chromium-headless-shell': ['chrome-headless-shell-' + arch, 'chrome-headless-shell'],
};
for (const b of JSON.parse(fs.readFileSync(json, 'utf8')).browsers) {
  if (!exe[b.name]) continue;
  const p = path.join(dir, b.name.replace(/-/g, '_') + '-' + b.revision, ...exe[b.name]);
  fs.mkdirSync(path.dirname(p), {recursive: true});
  fs.symlinkSync(chromium, p);
}
JS

i=0
while [ "$i" -lt "$N" ]; do
	PLAYWRIGHT_BROWSERS_PATH=$BROWSERS "$NODE" "$DRIVER/package/cli.js" run-server \
		--host 127.0.0.1 --port $((PORT + i)) &
	pids="$pids $!"
	i=$((i + 1))
done
echo "run-servers: $N servers; crawl with" >&2
i=0
while [ "$i" -lt "$N" ]; do
	printf '  --browser-endpoint ws://127.0.0.1:%d/' $((PORT + i)) >&2
	i=$((i + 1))
done
echo >&2
wait
