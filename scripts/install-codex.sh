#!/usr/bin/env bash
# Installs the pinned Codex CLI (@openai/codex) from the npm registry into a cache folder outside the
# repository, once; prints the folder. @openai/codex has no postinstall: its bin/codex.js finds the
# Rust binary by require.resolve of the platform package, an optional dependency
# (@openai/codex-linux-x64 = npm:@openai/codex@<version>-linux-x64), so the check is that binary:
# <folder>/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex.
# Used by the end-to-end tests (test/e2e-codex-gemini.test.ts) and by .ci/run. HOOKBOX_AGENT_CACHE moves
# the cache (default ~/.cache/hookbox-agents).
exec "$(dirname "$0")/install-agent.sh" codex "@openai/codex" "0.169.0" ../codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
