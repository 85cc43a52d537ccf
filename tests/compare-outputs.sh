#!/usr/bin/env bash
# Compiles every fixture shader with the binaries of revision REV (default: HEAD~1) and of the
# working tree, on the PICA200 and AGAL baseline, standard and standardExtended, and lists
# each compile whose bytes (or, for a refusal, the first diagnostic line) differ: the check
# behind "outputs byte-identical" over the whole corpus, third-party shaders included, where
# tests/golden/outputs.txt pins the glsl and edge fixtures only.
#
#   tests/compare-outputs.sh [REV]
#
# REV is built in a temporary worktree with its own target folder (a few minutes); the
# working tree's binaries are built with `cargo build -p spv2retro-cli --bins`.
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:-HEAD~1}"
old_tree="$(mktemp -d)"
old_target="${COMPARE_OLD_TARGET:-$(mktemp -d)}"
scratch="$(mktemp -d)"
trap 'git worktree remove --force "$old_tree" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git worktree add --detach -f "$old_tree" "$rev" >/dev/null
# The binaries' package was `spv2retro` before the tools had a crate of their own.
if grep -q '^name = "spv2retro-cli"' "$old_tree/tools/Cargo.toml" 2>/dev/null; then pkg=spv2retro-cli; else pkg=spv2retro; fi
(cd "$old_tree" && CARGO_TARGET_DIR="$old_target" cargo build -q -p "$pkg" --bins)
cargo build -q -p spv2retro-cli --bins
old="$old_target/debug"
new="${CARGO_TARGET_DIR:-target}/debug"

# One compile's outcome: the output's hash, or the exit status and first diagnostic line.
outcome() {
    local dir=$1 bin=$2 file=$3
    shift 3
    if "$dir/$bin" "$file" "$@" -o "$scratch/out" >/dev/null 2>"$scratch/err"; then
        md5sum <"$scratch/out" | cut -c1-32
    else
        echo "rc=$? $(head -1 "$scratch/err" | sed 's/^[^:]*: //')"
    fi
}

same=0
different=0
while read -r file; do
    for target in "spv2pica" "spv2agal --profile baseline" "spv2agal --profile standard" \
        "spv2agal --profile standardExtended"; do
        read -r bin args <<<"$target"
        # shellcheck disable=SC2086
        a="$(outcome "$old" "$bin" "$file" $args)"
        # shellcheck disable=SC2086
        b="$(outcome "$new" "$bin" "$file" $args)"
        if [[ $a == "$b" ]]; then
            same=$((same + 1))
        else
            different=$((different + 1))
            echo "differs: $file ($target): was [$a], now [$b]"
        fi
    done
done < <(find tests/fixtures -type f \( -name '*.spv' -o -name '*.spvasm' -o -name '*.vert' \
    -o -name '*.frag' -o -name '*.wgsl' \) | sort)
echo "compared $((same + different)) compiles with $rev's binaries: $same the same, $different different"
