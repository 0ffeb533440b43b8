#!/usr/bin/env bash
# countersign benchmark (issue #6). Everything runs on loopback against the Sigstore test stack;
# figures are meant as ratios against the per-file baseline measured in the same run, not as
# absolute numbers (the machine, its load and the JDK all move them).
#
#   bench/bench.sh [--sizes "1 50 500"] [--latencies "0 150"] [--baseline-sample K]
#                  [--verify-n 10000] [--rss-n 5000] [--repeat 5] [--sign-repeat 1]
#                  [--skip-baseline] [--only sign|offline] [--runtime DIR] [--results FILE]
#                  [--transport http|tls]
#
# --runtime DIR measures the runtime the container ships (built by .ci/build-runtime.sh DIR):
# its jlinked java, its jar and the launcher flags in DIR/jvm.options (AppCDS archive included).
# Without it: `java -jar target/countersign.jar` with no flags.
#
# What it measures, per latency L in --latencies (a fresh stack with --latency-ms L each):
#   countersign   `countersign run --no-push` in a clone (bare origin + clone) whose unsigned/
#                 holds N freshly generated manifests: sign + move unsigned/ -> signed/ + commit.
#   baseline      `node tools/sign.mjs FILE -o FILE.sigstore.json`, once per file, sequentially:
#                 the hand-written shell loop. With --baseline-sample K (0 < K < N) only the first
#                 K files are signed and the wall time is scaled by N/K ("extrapolated").
#   CPU per manifest  with N=1 among --sizes: (CPU at the largest N - CPU at N=1) / (N - 1), from
#                 the medians, per latency (issue #11's "CPU per manifest at N=500").
#   --sign-repeat K  K rounds of both, alternating, each on fresh repositories; the rows give the
#                 medians (a single one-manifest run moves by several percent between runs, as
#                 much as the difference it is meant to show).
# Then, offline (no stack needed for the timings):
#   verify        `countersign verify --key` over --verify-n files signed with a generated key.
#   --version     median of --repeat starts.
#   no-op run     `countersign run --no-push` with nothing in unsigned/: median of --repeat.
#   RSS at N      peak RSS of a keyless `run --no-push` over --rss-n manifests at latency 0.
#
# --transport: how both sides reach Fulcio, the same for both (Rekor and the token endpoint are
# plain http on the stack either way). http (default): both use OUT/signing_config.http.json.
# tls: both use OUT/signing_config.json (https Fulcio); countersign's JVM trusts the stack's CA
# through a trust store of the same type as the runtime's own cacerts (what a runner's JVM
# reads), the loop through NODE_EXTRA_CA_CERTS.
#
# Every row reports wall time, manifests/s, certificates and Rekor entries issued (GET /__stats,
# reset with POST /__stats/reset before each measurement) and peak RSS (/usr/bin/time -v; for
# the baseline loop this is the largest single node process).
#
# Environment: JAVA (default: java on PATH), COUNTERSIGN_JAVA_OPTS (extra JVM flags for every
# countersign start, e.g. "-XX:TieredStopAtLevel=1"), COUNTERSIGN_RUN_ARGS (extra options of the
# measured keyless runs, e.g. "--parallel 64"), COUNTERSIGN_JAR (default
# target/countersign.jar), SIGSTORE_STACK_DIR (default target/sigstore-test-stack, installed by
# .ci/install-test-stack), KEEP_WORK=1 keeps the scratch directory, TMPDIR (default /tmp) is where
# it goes: the runs create their files there, and on some file systems creating an inode costs far
# more in one directory tree than another (docs/performance.md, "Where a new file costs 1 ms").
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA="${JAVA:-java}"
JAR="${COUNTERSIGN_JAR:-$repo_root/target/countersign.jar}"
STACK_DIR="${SIGSTORE_STACK_DIR:-$repo_root/target/sigstore-test-stack}"
read -r -a EXTRA_JAVA_OPTS <<<"${COUNTERSIGN_JAVA_OPTS:-}"
read -r -a RUN_ARGS <<<"${COUNTERSIGN_RUN_ARGS:-}"
runtime=""

sizes="1 50 500"
latencies="0 150"
baseline_sample=0
verify_n=10000
rss_n=5000
repeat=5
sign_repeat=1
skip_baseline=0
only=all
results=""
transport=http

while (($#)); do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --latencies) latencies="$2"; shift 2 ;;
    --baseline-sample) baseline_sample="$2"; shift 2 ;;
    --verify-n) verify_n="$2"; shift 2 ;;
    --rss-n) rss_n="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --sign-repeat) sign_repeat="$2"; shift 2 ;;
    --skip-baseline) skip_baseline=1; shift ;;
    --only) only="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    --transport) transport="$2"; shift 2 ;;
    --runtime) runtime="$(cd "$2" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

die() { echo "bench: $*" >&2; exit 1; }
[[ "$transport" == http || "$transport" == tls ]] || die "--transport takes http or tls"
if [[ -n "$runtime" ]]; then
  [[ -f "$runtime/jvm.options" ]] || die "$runtime is not a runtime built by .ci/build-runtime.sh"
  JAVA="$runtime/jre/bin/java"
  JAR="$runtime/app/countersign.jar"
  mapfile -t launcher_opts <"$runtime/jvm.options"
  EXTRA_JAVA_OPTS=("${launcher_opts[@]}" "${EXTRA_JAVA_OPTS[@]}")
fi
[[ -f "$JAR" ]] || die "no $JAR; build it first: mvn -B -q -o -DskipTests package"
[[ -f "$STACK_DIR/server.mjs" && -d "$STACK_DIR/node_modules" ]] \
  || die "no test stack in $STACK_DIR; install it first: bash .ci/install-test-stack"
[[ -x /usr/bin/time ]] || die "/usr/bin/time (GNU time) is needed for peak RSS"
for tool in node git curl keytool; do
  command -v "$tool" >/dev/null || die "$tool is not on PATH"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/countersign-bench.XXXXXX")"
stack_pid=""
cleanup() {
  if [[ -n "$stack_pid" ]]; then kill "$stack_pid" 2>/dev/null || true; wait "$stack_pid" 2>/dev/null || true; fi
  if [[ "${KEEP_WORK:-0}" == 1 ]]; then echo "bench: scratch kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

table="$work/table.md"
log() { echo "bench: $*" >&2; }
row() { echo "$*" >>"$table"; }
row "| scenario | latency ms | N | wall s | manifests/s | speed-up vs baseline | certificates | log entries | peak RSS MB | CPU s |"
row "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
fmt_s() { awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; }
rate() { awk -v n="$1" -v ms="$2" 'BEGIN { if (ms > 0) printf "%.1f", n * 1000 / ms; else print "-" }'; }
mb() { awk -v kb="$1" 'BEGIN { printf "%.0f", kb / 1024 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
median_dec() { sort -g | awk '{ a[NR] = $1 } END { printf "%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# measure OUTFILE CMD...: runs CMD under GNU time; sets WALL_MS and RSS_KB, CMD's stdout+stderr -> OUTFILE.
measure() {
  local out="$1"; shift
  local t0 t1 status=0
  t0=$(now_ms)
  /usr/bin/time -v -o "$work/time.txt" "$@" >"$out" 2>&1 || status=$?
  t1=$(now_ms)
  WALL_MS=$((t1 - t0))
  RSS_KB=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time.txt")
  # CPU seconds (user + system, children included): steadier than wall time on a shared machine.
  CPU_S=$(awk -F': ' '/User time|System time/ { t += $2 } END { printf "%.2f", t }' "$work/time.txt")
  if ((status != 0)); then
    log "command failed ($status): $*"; tail -20 "$out" >&2; exit 1
  fi
}

# The countersign command line as an array (GNU time runs programs, not shell functions).
trust_opts=()
cs() { CS=("$JAVA" "${EXTRA_JAVA_OPTS[@]}" "${trust_opts[@]}" -jar "$JAR"); }

# ---- the stack ---------------------------------------------------------------------------------
start_stack() { # latency
  local latency="$1" out="$work/stack-$1"
  stop_stack
  node "$STACK_DIR/server.mjs" --out "$out" --port 0 --latency-ms "$latency" --ttl-s 7200 \
    >"$work/stack-$latency.stdout" 2>"$work/stack-$latency.stderr" &
  stack_pid=$!
  for _ in $(seq 1 300); do [[ -f "$out/stack.json" ]] && break; sleep 0.1; done
  [[ -f "$out/stack.json" ]] || { cat "$work/stack-$latency.stderr" >&2; die "the test stack did not start"; }
  stack_out="$out"
  # shellcheck disable=SC1091
  set -a; . "$out/stack.env"; set +a
  stack_url="$SIGSTORE_STACK_URL"
  if [[ "$transport" == tls ]]; then
    # https Fulcio: the JVM trusts the stack's CA next to the public roots, in a store of the type
    # the runtime's own cacerts has (a PKCS12 store costs two 10,000-round PBKDF2s to open).
    local java_home cacerts store_type store
    java_home="$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.home/ { print $2 }')"
    cacerts="$java_home/lib/security/cacerts"
    store_type="$(keytool -list -keystore "$cacerts" -storepass changeit 2>/dev/null | awk -F': ' '/^Keystore type/ { print $2 }')"
    store="$work/truststore-$latency.${store_type,,}"
    keytool -importkeystore -noprompt -srckeystore "$cacerts" -srcstorepass changeit \
      -destkeystore "$store" -deststoretype "$store_type" -deststorepass changeit >/dev/null 2>&1
    keytool -importcert -noprompt -alias sigstore-test-stack -file "$out/tls-ca.pem" \
      -keystore "$store" -storetype "$store_type" -storepass changeit >/dev/null 2>&1
    trust_opts=(-Djavax.net.ssl.trustStore="$store" -Djavax.net.ssl.trustStorePassword=changeit)
    signing_config="$out/signing_config.json"
    NODE_CA="$out/tls-ca.pem"
  else
    trust_opts=()
    signing_config="$out/signing_config.http.json"
    NODE_CA=""
  fi
  log "stack up at $stack_url (latency ${latency} ms)"
}
stop_stack() {
  if [[ -n "$stack_pid" ]]; then kill "$stack_pid" 2>/dev/null || true; wait "$stack_pid" 2>/dev/null || true; stack_pid=""; fi
}
stats_reset() { curl -fsS -X POST "$stack_url/__stats/reset" >/dev/null; }
# stats_read: sets CERTS and ENTRIES from GET /__stats.
stats_read() {
  read -r CERTS ENTRIES < <(curl -fsS "$stack_url/__stats" \
    | node -e 'const s = JSON.parse(require("fs").readFileSync(0)); console.log(s.issued.certificates, s.issued.logEntries)')
}
keyless_args() { echo --trusted-root "$stack_out/trusted_root.json" --signing-config "$signing_config"; }

# ---- repositories ------------------------------------------------------------------------------
git_quiet() { git -c user.name=bench -c user.email=bench@example.invalid -c init.defaultBranch=main -c commit.gpgsign=false "$@" >/dev/null 2>&1; }
make_repo() { # dir n: bare origin + clone with n manifests committed under unsigned/
  local dir="$1" n="$2"
  mkdir -p "$dir"
  git_quiet init --bare "$dir/origin.git"
  git_quiet clone "$dir/origin.git" "$dir/clone"
  node "$repo_root/bench/gen-manifests.mjs" "$dir/clone/unsigned" "$n"
  mkdir -p "$dir/clone/signed"; : >"$dir/clone/signed/.gitkeep"
  git_quiet -C "$dir/clone" add -A
  git_quiet -C "$dir/clone" commit -m "add $n manifests"
  git_quiet -C "$dir/clone" push origin HEAD:main
}
count_yaml() { find "$1" -name '*.yaml' -type f 2>/dev/null | wc -l; }

# The pipeline under test is `countersign run --no-push` started inside the clone (env -C), like
# the Action: sign + move unsigned/ -> signed/ + commit.

# ---- keyless: countersign vs the per-file loop ------------------------------------------------
# One round: countersign over n fresh manifests, then (unless --skip-baseline) the loop over k of
# them. With --sign-repeat K the rounds alternate K times and every figure is the median of K
# (peak RSS: the largest), so that both sides meet the same minutes of machine load.
bench_keyless() { # latency n
  local latency="$1" n="$2" dir="$work/keyless-$1-$2"
  local k=$n label="per-file node sign.mjs loop"
  if ((baseline_sample > 0 && baseline_sample < n)); then k=$baseline_sample; label="$label (extrapolated from $k files)"; fi
  local cs_ms=() cs_cpu=() cs_rss=0 base_ms=() base_cpu=() base_rss=0 round
  local cs_certs cs_entries base_certs base_entries
  for round in $(seq 1 "$sign_repeat"); do
    make_repo "$dir" "$n"
    local before; before=$(git -C "$dir/clone" rev-list --count HEAD)
    stats_reset
    # shellcheck disable=SC2046
    cs; measure "$dir/run.log" env -C "$dir/clone" "${CS[@]}" run --no-push $(keyless_args) "${RUN_ARGS[@]}"
    stats_read
    local signed left after
    signed=$(count_yaml "$dir/clone/signed"); left=$(count_yaml "$dir/clone/unsigned")
    after=$(git -C "$dir/clone" rev-list --count HEAD)
    ((signed == n && left == 0 && after == before + 1)) \
      || { tail -20 "$dir/run.log" >&2; die "run did not sign+move+commit $n files (signed=$signed left=$left commits=$((after - before)))"; }
    cs_ms+=("$WALL_MS"); cs_cpu+=("$CPU_S"); ((RSS_KB > cs_rss)) && cs_rss=$RSS_KB
    cs_certs=$CERTS; cs_entries=$ENTRIES
    log "countersign L=$latency N=$n round $round: $(fmt_s "$WALL_MS") s, certs=$CERTS entries=$ENTRIES, rss=$(mb "$RSS_KB") MB"

    if ((skip_baseline == 0)); then
      local files=()
      # Sign copies of the *unsigned* text: regenerate it beside the repo.
      node "$repo_root/bench/gen-manifests.mjs" "$dir/baseline" "$n"
      mapfile -t files < <(find "$dir/baseline" -name '*.yaml' -type f | sort)
      printf '%s\n' "${files[@]:0:k}" >"$dir/baseline.list"
      stats_reset
      measure "$dir/baseline.log" env ${NODE_CA:+NODE_EXTRA_CA_CERTS="$NODE_CA"} bash -c '
        while IFS= read -r f; do
          node "$1/tools/sign.mjs" --signing-config "$2" "$f" -o "$f.sigstore.json" || exit 1
        done <"$3"' _ "$STACK_DIR" "$signing_config" "$dir/baseline.list"
      stats_read
      base_ms+=("$((WALL_MS * n / k))")
      base_cpu+=("$(awk -v c="$CPU_S" -v n="$n" -v k="$k" 'BEGIN { printf "%.2f", c * n / k }')")
      ((RSS_KB > base_rss)) && base_rss=$RSS_KB
      base_certs=$CERTS; base_entries=$ENTRIES
      log "baseline    L=$latency N=$n round $round: $(fmt_s "${base_ms[-1]}") s$( ((k < n)) && echo " (extrapolated from $k)")"
    fi
    rm -rf "$dir"
  done

  local runs="" ratio="-" cs_med base_med
  ((sign_repeat > 1)) && runs=" (median of $sign_repeat alternating rounds)"
  cs_med=$(printf '%s\n' "${cs_ms[@]}" | median)
  if ((skip_baseline == 0)); then
    base_med=$(printf '%s\n' "${base_ms[@]}" | median)
    ratio=$(awk -v b="$base_med" -v c="$cs_med" 'BEGIN { printf "%.2fx", b / c }')
    if ((k < n)); then base_certs="$base_certs (x$n/$k)"; base_entries="$base_entries (x$n/$k)"; fi
  fi
  local cs_cpu_med; cs_cpu_med=$(printf '%s\n' "${cs_cpu[@]}" | median_dec)
  CPU_MEDIAN["$latency/$n"]=$cs_cpu_med
  row "| countersign run --no-push$runs | $latency | $n | $(fmt_s "$cs_med") | $(rate "$n" "$cs_med") | $ratio | $cs_certs | $cs_entries | $(mb "$cs_rss") | $cs_cpu_med |"
  if ((skip_baseline == 0)); then
    row "| $label$runs | $latency | $n | $(fmt_s "$base_med") | $(rate "$n" "$base_med") | 1.0 (baseline) | $base_certs | $base_entries | $(mb "$base_rss") | $(printf '%s\n' "${base_cpu[@]}" | median_dec) |"
  fi
}

bench_noop_and_rss() { # at latency 0
  local dir="$work/noop"
  make_repo "$dir" 0
  local runs=()
  for _ in $(seq 1 "$repeat"); do
    stats_reset
    # shellcheck disable=SC2046
    cs; measure "$dir/run.log" env -C "$dir/clone" "${CS[@]}" run --no-push $(keyless_args)
    runs+=("$WALL_MS")
  done
  stats_read
  local med; med=$(printf '%s\n' "${runs[@]}" | median)
  row "| no-op \`run --no-push\` (nothing in unsigned/, median of $repeat) | 0 | 0 | $(fmt_s "$med") | - | - | $CERTS | $ENTRIES | $(mb "$RSS_KB") | $CPU_S |"
  log "no-op run: median $(fmt_s "$med") s (${runs[*]} ms)"
  rm -rf "$dir"

  if ((rss_n > 0)); then
    dir="$work/rss"
    make_repo "$dir" "$rss_n"
    stats_reset
    # shellcheck disable=SC2046
    cs; measure "$dir/run.log" env -C "$dir/clone" "${CS[@]}" run --no-push $(keyless_args)
    stats_read
    [[ $(count_yaml "$dir/clone/signed") == "$rss_n" ]] || { tail -20 "$dir/run.log" >&2; die "RSS run did not sign $rss_n files"; }
    row "| countersign run --no-push (peak RSS run) | 0 | $rss_n | $(fmt_s "$WALL_MS") | $(rate "$rss_n" "$WALL_MS") | - | $CERTS | $ENTRIES | $(mb "$RSS_KB") | $CPU_S |"
    log "RSS run N=$rss_n: $(fmt_s "$WALL_MS") s, rss=$(mb "$RSS_KB") MB"
    rm -rf "$dir"
  fi
}

# ---- offline ------------------------------------------------------------------------------------
bench_offline() {
  local dir="$work/offline" runs=()
  mkdir -p "$dir"
  for _ in $(seq 1 "$repeat"); do
    cs; measure "$dir/version.log" "${CS[@]}" --version
    runs+=("$WALL_MS")
  done
  local med; med=$(printf '%s\n' "${runs[@]}" | median)
  row "| \`countersign --version\` (median of $repeat) | - | - | $(fmt_s "$med") | - | - | - | - | $(mb "$RSS_KB") | $CPU_S |"
  log "--version: median $(fmt_s "$med") s (${runs[*]} ms)"
  if [[ -n "$runtime" ]]; then
    # The same start without the AppCDS archive, and with the plain JDK and jar (no flags).
    local variant label cmd
    for variant in no-appcds plain-jdk; do
      if [[ "$variant" == no-appcds ]]; then
        label="\`--version\`, shipped runtime without the AppCDS archive"
        cmd=("$JAVA" $(grep -v SharedArchiveFile "$runtime/jvm.options") -jar "$JAR")
      else
        label="\`--version\`, system JDK \`java -jar target/countersign.jar\`"
        cmd=(java -jar "$repo_root/target/countersign.jar")
      fi
      runs=()
      for _ in $(seq 1 "$repeat"); do
        measure "$dir/version.log" "${cmd[@]}" --version
        runs+=("$WALL_MS")
      done
      med=$(printf '%s\n' "${runs[@]}" | median)
      row "| $label (median of $repeat) | - | - | $(fmt_s "$med") | - | - | - | - | $(mb "$RSS_KB") | $CPU_S |"
      log "--version ($variant): median $(fmt_s "$med") s (${runs[*]} ms)"
    done
  fi

  if ((verify_n > 0)); then
    cs
    COSIGN_PASSWORD=bench "${CS[@]}" keygen --output-key-prefix "$dir/bench" >/dev/null
    node "$repo_root/bench/gen-manifests.mjs" "$dir/manifests" "$verify_n"
    COSIGN_PASSWORD=bench measure "$dir/sign.log" "${CS[@]}" sign --key "$dir/bench.key" "$dir/manifests"
    row "| \`sign --key\` (offline, keyed) | - | $verify_n | $(fmt_s "$WALL_MS") | $(rate "$verify_n" "$WALL_MS") | - | 0 | 0 | $(mb "$RSS_KB") | $CPU_S |"
    log "keyed sign N=$verify_n: $(fmt_s "$WALL_MS") s"
    # measure fails the benchmark on a non-zero exit, and verify exits 1 if any document is rejected.
    measure "$dir/verify.log" "${CS[@]}" verify --key "$dir/bench.pub" "$dir/manifests"
    row "| \`verify --key\` (offline) | - | $verify_n | $(fmt_s "$WALL_MS") | $(rate "$verify_n" "$WALL_MS") | - | - | - | $(mb "$RSS_KB") | $CPU_S |"
    log "verify N=$verify_n: $(fmt_s "$WALL_MS") s ($(rate "$verify_n" "$WALL_MS") manifests/s)"
  fi
  rm -rf "$dir"
}

# The CPU one more manifest costs, from the medians of N=1 and the largest N at one latency:
# (CPU_N - CPU_1) / (N - 1), in ms. It leaves out the start-up every run pays once.
declare -A CPU_MEDIAN=()
cpu_per_manifest() { # latency
  local latency="$1" largest=1 n
  for n in $sizes; do ((n > largest)) && largest=$n; done
  [[ -n "${CPU_MEDIAN[$latency/1]:-}" && $largest -gt 1 ]] || return 0
  local per; per=$(awk -v a="${CPU_MEDIAN[$latency/$largest]}" -v b="${CPU_MEDIAN[$latency/1]}" -v n="$largest" 'BEGIN { printf "%.2f", (a - b) * 1000 / (n - 1) }')
  row "| CPU per manifest: (CPU at N=$largest - CPU at N=1) / $((largest - 1)), ms | $latency | - | - | - | - | - | - | - | $per |"
  log "CPU per manifest at ${latency} ms: $per ms"
}

# fs_probe LABEL: the system CPU one new 1 KiB file costs in the scratch directory, in µs (1,000
# files in a new directory, kept until the end so that the probe's own deletes do not slow the
# runs). A run creates one file per manifest, so this cost is part of its CPU: on a journal-less
# ext4 (this kind of VM) it moved from ~20 µs to ~600 µs between directories of the same disk
# (docs/performance.md, "Where a new file costs 1 ms"); on tmpfs it is a few µs.
fs_probe() {
  local dir="$work/fs-probe-$1"
  mkdir -p "$dir"
  node -e '
    const fs = require("fs"), path = require("path");
    const dir = process.argv[1], data = Buffer.alloc(1024, 0x61), before = process.cpuUsage();
    for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(dir, "f" + i + ".yaml"), data);
    console.log(Math.round(process.cpuUsage(before).system / 1000));' "$dir"
}

# ---- main ----------------------------------------------------------------------------------------
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
fs_before="$(fs_probe before)"
log "scratch file system: a new file costs $fs_before µs of system CPU"
if ((fs_before > 100)); then
  log "warning: that is the disk, not countersign: every manifest creates a file, so the CPU figures" \
    "carry it (bench/README.md; TMPDIR=/dev/shm or a journaled file system measure countersign)"
fi
log "scratch: $work; jar: $JAR; java: $("$JAVA" -version 2>&1 | head -1); cores: $(nproc)"
if [[ "$only" == all || "$only" == sign ]]; then
  for latency in $latencies; do
    start_stack "$latency"
    for n in $sizes; do bench_keyless "$latency" "$n"; done
    cpu_per_manifest "$latency"
    if [[ "$latency" == 0 ]]; then bench_noop_and_rss; fi
  done
  stop_stack
fi
if [[ "$only" == all || "$only" == offline ]]; then
  trust_opts=()
  bench_offline
fi

{
  echo
  echo "countersign benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $("$JAVA" -version 2>&1 | head -1)"
  echo "load average before/after: $load_before / $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "scratch directory (repositories, signed files): $(dirname "$work") (TMPDIR), $(df --output=fstype "$work" | tail -1); a new file there costs $fs_before µs of system CPU before the runs, $(fs_probe after) µs after"
  echo "command: bench/bench.sh --sizes \"$sizes\" --latencies \"$latencies\" --baseline-sample $baseline_sample --verify-n $verify_n --rss-n $rss_n --repeat $repeat --sign-repeat $sign_repeat --transport $transport$( ((skip_baseline)) && echo ' --skip-baseline')${runtime:+ --runtime $runtime}${COUNTERSIGN_JAVA_OPTS:+ (COUNTERSIGN_JAVA_OPTS=$COUNTERSIGN_JAVA_OPTS)}${COUNTERSIGN_RUN_ARGS:+ (COUNTERSIGN_RUN_ARGS=$COUNTERSIGN_RUN_ARGS)}"
  echo
  cat "$table"
} | tee -a "${results:-/dev/null}"
