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
# agal: the first byte picks the profile (0-5).
agal="$here/corpus/agal"
mkdir -p "$agal"
i=0
for f in "$here"/../tests/fixtures/glsl/*.spv; do
    { printf "\\$(printf %03o $((i % 6)))"; cat "$f"; } > "$agal/seed$i"
    i=$((i + 1))
done
echo "seeded $i inputs into $agal"
