#!/usr/bin/env bash
# Seeds the fuzz corpus with the fixture corpora (binaries and assembly text).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/corpus/frontend"
mkdir -p "$out"
cp "$here"/../tests/fixtures/glsl/*.spv "$out"/
cp "$here"/../tests/fixtures/spvasm/*.spv "$here"/../tests/fixtures/spvasm/*.spvasm "$out"/
cp "$here"/../tests/fixtures/invalid/*.spvasm "$out"/
echo "seeded $(ls "$out" | wc -l) inputs into $out"
