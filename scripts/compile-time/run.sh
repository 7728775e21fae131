#!/usr/bin/env bash
# Compile time of #[derive(Deserialize, Intent)] against #[derive(Deserialize)] alone.
#
# Generates two crates of 200 types each (structs with strings, numbers, Option, Vec of another
# type, and an enum) under target/compile-time/, identical but for the derive. Both build in the
# workspace's target directory, so every dependency is compiled once and reused. Each crate is
# built once to warm; then, RUNS times, its source is touched and the rebuild (the crate's own
# compile only) is timed, the two crates alternating. Prints each median and their ratio.
#
#   scripts/compile-time/run.sh             # dev profile, 5 runs each
#   RUNS=9 PROFILE=release scripts/compile-time/run.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
work="$root/target/compile-time"
runs=${RUNS:-5}
profile=${PROFILE:-dev}
groups=50 # four types per group: 200 types

mkdir -p "$work"

# generate NAME DERIVES IMPORT
generate() {
  local name=$1 derives=$2 import=$3 dir="$work/$1"
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<TOML
[package]
name = "$name"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
intent-core = { path = "$root/intent-core" }
serde = { version = "1", features = ["derive"] }
TOML
  cp "$root/Cargo.lock" "$dir/Cargo.lock"
  {
    echo "//! 200 derived types."
    echo "#![allow(dead_code)]"
    echo "use serde::Deserialize;"
    echo "$import"
    for i in $(seq 1 "$groups"); do
      cat <<RUST

/// The state of a record of group $i.
#[derive($derives)]
pub enum Status$i { Draft, Active, Closed }

/// A part of group $i.
#[derive($derives)]
#[serde(rename_all = "camelCase")]
pub struct Part$i {
    /// The part's name.
    pub name: String,
    pub count: u32,
    pub unit_weight: f64,
    pub note: Option<String>,
}

/// A record of group $i.
#[derive($derives)]
#[serde(rename_all = "camelCase")]
pub struct Record$i {
    pub id: u64,
    /// The record's title.
    pub title: String,
    pub price: f64,
    pub active: bool,
    pub tags: Vec<String>,
    pub parts: Vec<Part$i>,
    pub status: Status$i,
    pub comment: Option<String>,
}

/// A summary of group $i.
#[derive($derives)]
pub struct Summary$i {
    pub label: String,
    pub total: i64,
    pub records: Vec<Record$i>,
    pub ratio: Option<f32>,
    pub status: Option<Status$i>,
}
RUST
    done
  } >"$dir/src/lib.rs"
}

generate derive-intent "Deserialize, Intent" "use intent_core::Intent;"
generate derive-serde "Deserialize" "use intent_core as _;"

# The workspace's own target directory: dependencies it has built are reused.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
build() {
  (cd "$work/$1" && cargo build -q --profile "$profile")
}

echo "warming: building dependencies once ($profile profile)" >&2
build derive-serde
build derive-intent

now() { date +%s.%N; }
declare -a with_times serde_times
for run in $(seq 1 "$runs"); do
  order=(derive-intent derive-serde)
  if ((run % 2 == 0)); then order=(derive-serde derive-intent); fi
  for crate in "${order[@]}"; do
    touch "$work/$crate/src/lib.rs"
    start=$(now)
    build "$crate"
    elapsed=$(awk -v a="$start" -v b="$(now)" 'BEGIN {print b - a}')
    if [[ $crate == derive-intent ]]; then with_times+=("$elapsed"); else serde_times+=("$elapsed"); fi
    printf 'run %d %-14s %.2f s\n' "$run" "$crate" "$elapsed" >&2
  done
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
with_median=$(median "${with_times[@]}")
serde_median=$(median "${serde_times[@]}")
ratio=$(awk -v a="$with_median" -v b="$serde_median" 'BEGIN {print a / b}')
printf 'Deserialize + Intent: %.2f s (median of %d)\n' "$with_median" "$runs"
printf 'Deserialize alone:    %.2f s (median of %d)\n' "$serde_median" "$runs"
printf 'ratio: %.2fx (target at most 1.5x)\n' "$ratio"
