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
# glsl: the GLSL fixtures, Vulkan-style and classic.
glsl="$here/corpus/glsl"
mkdir -p "$glsl"
cp "$here"/../tests/fixtures/glsl/*.vert "$here"/../tests/fixtures/glsl/*.frag "$glsl"/ 2>/dev/null || true
find "$here"/../tests/fixtures/classic "$here"/../tests/fixtures/handwritten -name '*.vert' -o -name '*.frag' -o -name '*.glsl' -o -name '*.vs' -o -name '*.fs' | while read -r f; do
    cp "$f" "$glsl/$(basename "$(dirname "$f")")_$(basename "$f")"
done
echo "seeded $(ls "$glsl" | wc -l) inputs into $glsl"
# picasso: every picasso source of the fixtures.
pica="$here/corpus/picasso"
mkdir -p "$pica"
find "$here"/../tests/fixtures -name '*.pica' -o -name '*.vsh' -o -name '*.gsh' | while read -r f; do
    cp "$f" "$pica/$(echo "$f" | md5sum | cut -c1-8)_$(basename "$f")"
done
echo "seeded $(ls "$pica" | wc -l) inputs into $pica"
# agalasm: the hand-written AGAL programs, byte 0 the profile (0-5) and, its top bit, a
# fragment program (names ending in frag or fs).
agalasm="$here/corpus/agalasm"
mkdir -p "$agalasm"
i=0
find "$here"/../tests/fixtures/handwritten -name '*.agal*' | while read -r f; do
    kind=0; case "$f" in *frag*|*fs*) kind=128;; esac
    { printf "\\$(printf %03o $(( (i % 6) + kind )))"; cat "$f"; } > "$agalasm/seed$i"
    i=$((i + 1))
done
echo "seeded $(ls "$agalasm" | wc -l) inputs into $agalasm"
# mir_read: the optimised MIR of the GLSL fixtures for both targets, and the filetests'
# inputs (each file up to its expectation).
mirs="$here/corpus/mir_read"
mkdir -p "$mirs"
root="$here/.."
for f in "$root"/tests/fixtures/glsl/*.vert.spv; do
    cargo run -q --manifest-path "$root/Cargo.toml" -p spv2retro-cli --bin spv2pica -- "$f" --emit mir -o "$mirs/$(basename "$f").pica.mir" 2>/dev/null || true
done
for f in "$root"/tests/fixtures/glsl/*.frag.spv; do
    cargo run -q --manifest-path "$root/Cargo.toml" -p spv2retro-cli --bin spv2agal -- "$f" --profile standard --emit mir -o "$mirs/$(basename "$f").agal.mir" 2>/dev/null || true
done
for f in "$root"/mir/filetests/*.mir; do
    sed '/^; expect:/,$d' "$f" > "$mirs/filetest_$(basename "$f")"
done
echo "seeded $(ls "$mirs" | wc -l) inputs into $mirs"
