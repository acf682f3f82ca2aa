#!/usr/bin/env bash
# Instruction counts per call (valgrind's callgrind), each operation of the benchmarks on each
# instance set, both sides in the same build. Usage: benches/counts.sh [SET...], or
# benches/counts.sh codegen for the comparison with jsonschema's generated validators.
# Counts repeat for the same binary and inputs, whatever else the machine is doing, once glibc's
# fastbins are off (GLIBC_TUNABLES=glibc.malloc.mxfast=0): with them, a free that merges into a
# chunk of 64 KiB or more consolidates every fastbin, and whether that happens once a call depends
# on how the heap was laid out before the loop, so the same run moved by up to 18% between processes.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = codegen ]; then
  # The strict check against jsonschema's compile-time generated validators (a package of its
  # own, see benches/codegen/Cargo.toml).
  (cd benches/codegen && cargo bench --no-run --locked 2>/dev/null)
  bin=$(ls -t benches/codegen/target/release/deps/codegen-* | grep -v '\.d$' | head -1)
  for set in weather/valid weather/3_errors nested/valid nested/5_errors; do
    for op in tooldef jsonschema generated; do
      out=$(TOOLDEF_COUNT="$set:$op:200" GLIBC_TUNABLES=glibc.malloc.mxfast=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            --collect-atstart=no --toggle-collect='*codegen*measured*' "$bin" 2>&1 >/dev/null)
      ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$out")
      printf '%-24s %-26s %12s\n' "$set" "$op" "$((ir / 200))"
    done
  done
  exit 0
fi
cargo bench --bench counts --no-run --locked 2>/dev/null
bin=$(ls -t target/release/deps/counts-* | grep -v '\.d$' | head -1)
sets=("$@")
if [ ${#sets[@]} -eq 0 ]; then
  sets=(weather/valid weather/3_errors nested/valid nested/5_errors bfcl/valid bfcl/invalid_twins bfcl/missing_required bfcl/unknown_key
        compile/weather compile/nested compile/generated_1000)
fi
# With CACHE=1, callgrind also simulates the caches (a 2 MiB last level, a share of a contended
# L3) and each row adds first-level and last-level data read misses per run: the cost of reading
# cold compiled programs, which instruction counts do not show (see BENCHMARKS.md, "Wall clock").
sim=()
if [ "${CACHE:-0}" = 1 ]; then sim=(--cache-sim=yes --LL=2097152,16,64); fi
count() { # SET OP N -> instructions (and with CACHE=1, D1 and LL read misses) per run of the set
  local out
  out=$(GLIBC_TUNABLES=glibc.malloc.mxfast=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
        "${sim[@]}" --toggle-collect='*counts*measured*' "$bin" "$1" "$2" "$3" 2>&1 >/dev/null)
  local -a c
  read -r -a c <<<"$(sed -n 's/.*Collected : \([0-9 ]*\).*/\1/p' <<<"$out")"
  if [ ${#sim[@]} -gt 0 ]; then
    printf '%12s %10s %10s' $((c[0] / $3)) $((c[4] / $3)) $((c[7] / $3))
  else
    echo $((c[0] / $3))
  fi
}
for set in "${sets[@]}"; do
  case "$set" in
    compile/generated_1000) ops=(ours_compile_validators ours_compile ours_parse serde_json_parse_emitted); n=1 ;;
    compile/*) ops=(ours_compile_validators ours_compile ours_parse serde_json_parse_emitted); n=20 ;;
    bfcl/*) ops=(ours_is_valid theirs_is_valid ours_validate_value theirs_iter_errors ours_validate_value_messages theirs_iter_errors_messages ours_validate_str_lax ours_validate_str_strict serde_json_from_str loop_only); n=2 ;;
    *) ops=(ours_is_valid theirs_is_valid ours_validate_value theirs_iter_errors ours_validate_value_messages theirs_iter_errors_messages ours_validate_str_lax ours_validate_str_strict serde_json_from_str loop_only); n=200 ;;
  esac
  for op in "${ops[@]}"; do
    printf '%-24s %-26s %12s\n' "$set" "$op" "$(count "$set" "$op" "$n")"
  done
done
