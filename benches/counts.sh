#!/usr/bin/env bash
# Instruction counts per call (valgrind's callgrind), each operation of the benchmarks on each
# instance set, both sides in the same build. Usage: benches/counts.sh [SET...]
# Counts repeat exactly for the same binary and inputs, whatever else the machine is doing.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench counts --no-run --locked 2>/dev/null
bin=$(ls -t target/release/deps/counts-* | grep -v '\.d$' | head -1)
sets=("$@")
if [ ${#sets[@]} -eq 0 ]; then
  sets=(weather/valid weather/3_errors nested/valid nested/5_errors bfcl/valid bfcl/invalid_twins
        compile/weather compile/nested compile/generated_1000)
fi
count() { # SET OP N -> instructions per run of the set
  local out
  out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
        --toggle-collect='*counts*measured*' "$bin" "$1" "$2" "$3" 2>&1 >/dev/null)
  local ir
  ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$out")
  echo $((ir / $3))
}
for set in "${sets[@]}"; do
  case "$set" in
    compile/generated_1000) ops=(ours_compile_validators ours_compile ours_parse serde_json_parse_emitted); n=1 ;;
    compile/*) ops=(ours_compile_validators ours_compile ours_parse serde_json_parse_emitted); n=20 ;;
    bfcl/*) ops=(ours_is_valid theirs_is_valid ours_validate_value theirs_iter_errors ours_validate_str_lax ours_validate_str_strict serde_json_from_str); n=2 ;;
    *) ops=(ours_is_valid theirs_is_valid ours_validate_value theirs_iter_errors ours_validate_str_lax ours_validate_str_strict serde_json_from_str); n=200 ;;
  esac
  for op in "${ops[@]}"; do
    printf '%-24s %-26s %12s\n' "$set" "$op" "$(count "$set" "$op" "$n")"
  done
done
