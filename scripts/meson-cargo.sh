#!/usr/bin/env bash
# meson.build's build step: cargo builds the library into a target
# directory of the Meson build tree, and the static library is copied to
# where Meson expects its output (cargo cannot name its output directory).
# The copy keeps cargo's time stamp, so an unchanged library relinks nothing.
# Usage: meson-cargo.sh CARGO SOURCE_DIR TARGET_DIR OUTPUT
set -euo pipefail
cargo=$1 source=$2 target_dir=$3 output=$4
"$cargo" build --release --lib --manifest-path "$source/Cargo.toml" --target-dir "$target_dir"
cp -p "$target_dir/release/libslate.a" "$output"
