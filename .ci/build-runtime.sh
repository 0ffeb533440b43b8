#!/usr/bin/env bash
# Builds the small countersign runtime that the container image ships (the Dockerfile runs this
# script; run it locally to check it and to measure it, see docs/performance.md):
#
#   .ci/build-runtime.sh [--update-class-list] [OUT]
#                                       (default OUT: target/runtime; needs `mvn package` first)
#
# OUT/jre         a JRE made by jlink with only the modules jdeps finds in target/countersign.jar
#                 and target/lib (plus the service-provider modules jdeps cannot see)
# OUT/app         countersign.jar and lib/, the signed third-party jars unsigned (see below)
# OUT/app/countersign.jsa
#                 a static AppCDS archive of the classes training runs load (verify; keyless
#                 run against the loopback test stack, or the committed list of its classes)
# OUT/jvm.options the JVM flags of the launcher, one per line; the Dockerfile's ENTRYPOINT
#                 repeats them, OUT/bin/countersign uses them
#
# The archive stores absolute paths: build at the final location (the Dockerfile uses
# /opt/countersign in both stages). JAVA_HOME (or the java on PATH) must be a full JDK 17 with jmods.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
update_class_list=0
if [[ "${1:-}" == --update-class-list ]]; then update_class_list=1; shift; fi
out="${1:-$repo_root/target/runtime}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if [[ -z "${JAVA_HOME:-}" ]]; then
  JAVA_HOME="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.home/ { print $2 }')"
fi
jdk_bin="$JAVA_HOME/bin"
[[ -d "$JAVA_HOME/jmods" ]] || { echo "build-runtime: $JAVA_HOME has no jmods/; jlink needs a full JDK" >&2; exit 1; }
jar_file="$repo_root/target/countersign.jar"
[[ -f "$jar_file" && -d "$repo_root/target/lib" ]] \
  || { echo "build-runtime: no target/countersign.jar + target/lib; run mvn -B -DskipTests package first" >&2; exit 1; }
log() { echo "build-runtime: $*" >&2; }

rm -rf "$out/jre" "$out/app" "$out/bin" "$out/jvm.options"

# 1. Modules. jdeps sees static references only; these are reached through ServiceLoader or
#    reflection and are needed all the same:
#      jdk.crypto.ec     the SunEC provider: EC keys, ECDSA fallback, ECDHE in TLS (Fulcio gRPC)
#      jdk.zipfs         the zip file system (jar resources opened as file systems)
#      jdk.charsets      non-UTF charsets that HTTP responses may declare
#      jdk.localedata    not needed: messages are English; leaving it out saves ~20 MB
log "jdeps (takes a few seconds)"
modules="$("$jdk_bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 17 --recursive \
  --class-path "$repo_root/target/lib/*" "$jar_file")"
modules="$modules,jdk.crypto.ec,jdk.zipfs,jdk.charsets"
log "modules: $modules"

# 2. The JRE. --generate-cds-archive writes the JDK's default CDS archive into the image; the
#    dynamic AppCDS archive below is layered on top of it and cannot exist without it.
"$jdk_bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress=2 --generate-cds-archive --output "$out/jre"

# 3. The application. Signed jars are unsigned here: the JVM verifies every class of a signed jar
#    against its signature when loading it (measurable start time: BouncyCastle and jgit are
#    signed), and CDS never archives classes from signed jars. OpenJDK does not require JCE
#    providers to be signed. The per-entry digest sections go too, leaving the main attributes.
mkdir -p "$out/app/lib"
cp "$jar_file" "$out/app/countersign.jar"
cp "$repo_root"/target/lib/*.jar "$out/app/lib/"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for jar in "$out"/app/lib/*.jar; do
  "$jdk_bin/jar" --list --file "$jar" >"$scratch/entries"
  if grep -qE '^META-INF/[^/]+\.(SF|RSA|DSA|EC)$' "$scratch/entries"; then
    log "unsigning $(basename "$jar")"
    rm -rf "$scratch/x" && mkdir -p "$scratch/x"
    (cd "$scratch/x" && "$jdk_bin/jar" --extract --file "$jar")
    rm -f "$scratch"/x/META-INF/*.SF "$scratch"/x/META-INF/*.RSA "$scratch"/x/META-INF/*.DSA "$scratch"/x/META-INF/*.EC
    # Main section only: everything up to the first empty line.
    awk '{ sub(/\r$/, "") } NF == 0 { exit } { print }' "$scratch/x/META-INF/MANIFEST.MF" >"$scratch/MANIFEST.MF"
    rm -f "$scratch/x/META-INF/MANIFEST.MF"
    "$jdk_bin/jar" --create --file "$jar" --manifest "$scratch/MANIFEST.MF" -C "$scratch/x" .
  fi
done

# 4. Launcher flags (see docs/performance.md for the measurements behind each):
#    SerialGC: one GC thread and the smallest footprint; the heap is small and the runs short.
#    TieredStopAtLevel=1: C1 only; most runs end before C2 would pay off, and C2 competes for
#      the runner's two cores.
#    Xms64m + Min/MaxHeapFreeRatio: start small and keep the heap close to the live set; the
#      default initial heap (1/64 of RAM) is touched by allocation and shows up as RSS. After a
#      full collection at most 20 % of the heap stays free (30 % before): peak RSS at N = 5,000
#      with 128 uploads in flight, three alternating rounds each, 251/257/278 MB at 30 and
#      246/249/247 MB at 20, CPU 10.6-12.9 s both ways (docs/performance.md).
#    MaxRAMPercentage: a heap bound that follows the machine, without a fixed -Xmx.
#    Xmn16m: a small fixed young generation. By default it is a third of a heap that grows with
#      the signed files held until the commit, and all of eden is touched between collections.
#      Peak RSS, default -> 32m -> 16m: N = 5,000 271-276 -> 247-253 -> 235 MB; N = 500 133 ->
#      147 -> 132 MB; N = 1 105 -> 111 -> 103 MB; CPU within the noise of a shared machine
#      (garbage per manifest dies young; a minor collection costs what survives, not eden's size).
#    SharedArchiveFile + Xshare:auto: the AppCDS archive below; a stale archive is not an error.
#    ArchiveRelocationMode=0 (a diagnostic flag, hence the unlock): map the archive at the address
#      it was built for, as JDK 17 did before 17.0.x made relocation the default. Relocating
#      patches every pointer of the 46 MB archive at each start, which writes to (and so makes
#      private) ~15 MB of its pages: 78 -> 63 MB RSS for --version, 83 -> 70 MB for a no-op run
#      (docs/performance.md). What it gives up is a random address for the class metadata of a
#      Java process, whose inputs (YAML, JSON, git objects) are parsed by memory-safe Java code;
#      the JVM still relocates when that address is taken.
cat >"$out/jvm.options" <<EOF
-XX:+UseSerialGC
-XX:TieredStopAtLevel=1
-Xms64m
-Xmn16m
-XX:MinHeapFreeRatio=10
-XX:MaxHeapFreeRatio=20
-XX:MaxRAMPercentage=25
-XX:SharedArchiveFile=$out/app/countersign.jsa
-Xshare:auto
-XX:+UnlockDiagnosticVMOptions
-XX:ArchiveRelocationMode=0
EOF

# 5. AppCDS: a static archive (-Xshare:dump) of the classes real runs load, listed by training
#    runs with -XX:DumpLoadedClassList and merged:
#      verify    the bundled example, signed here with its demo key (start-up, option parsing,
#                YAML, the signed-manifest format, keys, verification: `check`, `verify`)
#      keyless   `run --no-push` of the bundled example against the loopback Sigstore test stack
#                (jgit, trust material, Fulcio, Rekor, the signer): the Action's common path,
#                ~1 CPU s of class loading and static initialisers a cold start would pay.
#                It needs node >= 20 and the stack (bash .ci/install-test-stack); where they are
#                missing (the image build) the list committed in .ci/appcds-keyless.classlist is
#                used instead. `--update-class-list` rewrites that file from a fresh keyless run
#                (class names and the @lambda-proxy/@lambda-form-invoker lines).
#      action    the Action's no-op step (`countersign action`, a merged pull request, nothing in
#                unsigned/, a trust policy as `init` writes one): INPUT_* mapping, the event, the
#                policy's directory pairs, workspace hand-back and jgit's fetch from a bare origin,
#                which `run --no-push` never loads (~220 jgit transport classes).
#                It needs git; `--update-class-list` adds its classes to the committed list.
#    A list entry that no longer exists is skipped with a warning: a stale list costs start
#    time, never correctness.
java_bin="$out/jre/bin/java"
mapfile -t flags < <(grep -v -e SharedArchiveFile -e Xshare "$out/jvm.options")
committed_list="$repo_root/.ci/appcds-keyless.classlist"
mkdir -p "$scratch/example"
cp -r "$repo_root/docs/example/unsigned" "$scratch/example/"
COSIGN_PASSWORD=countersign-demo "$java_bin" "${flags[@]}" -jar "$out/app/countersign.jar" \
  sign --key "$repo_root/docs/example/demo.key" --out "$scratch/example/signed" "$scratch/example/unsigned" >/dev/null
"$java_bin" "${flags[@]}" -XX:DumpLoadedClassList="$scratch/verify.classlist" -jar "$out/app/countersign.jar" \
  verify --key "$repo_root/docs/example/demo.pub" "$scratch/example/signed" >/dev/null

git_q() { git -c user.name=train -c user.email=train@example.invalid -c init.defaultBranch=main -c commit.gpgsign=false "$@" >/dev/null; }
action_list=""
if command -v git >/dev/null; then
  # The Action's no-op step as the runner runs it: a merged pull request, nothing left in
  # unsigned/, countersign fetches the base branch from origin and stops.
  action_dir="$scratch/action"
  mkdir -p "$action_dir/home"
  git_q init --bare "$action_dir/origin.git"
  git_q clone "$action_dir/origin.git" "$action_dir/repo"
  echo "countersign training repository" >"$action_dir/repo/README"
  # A trust policy, as `init` writes one: run reads it from the commit before anything else
  # (the directory pairs it judges), so its loader and YAML classes are on the no-op path too.
  mkdir -p "$action_dir/repo/.countersign"
  cp "$repo_root/docs/example/demo.pub" "$action_dir/repo/.countersign/demo.pub"
  printf 'apiVersion: countersign.dev/v1alpha1\nkind: TrustPolicy\nkeys:\n  - path: .countersign/demo.pub\n' \
    >"$action_dir/repo/.countersign/policy.yaml"
  git_q -C "$action_dir/repo" add -A
  git_q -C "$action_dir/repo" commit -m "nothing to sign"
  git_q -C "$action_dir/repo" push origin HEAD:main
  echo '{"action":"closed","number":1,"pull_request":{"number":1,"merged":true,"base":{"ref":"main"},"head":{"ref":"feature"}}}' \
    >"$action_dir/event.json"
  (cd "$action_dir/repo" && env -i PATH="$PATH" HOME="$action_dir/home" GITHUB_ACTIONS=true \
    GITHUB_WORKSPACE="$action_dir/repo" GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$action_dir/event.json" \
    GITHUB_OUTPUT="$action_dir/output" GITHUB_STEP_SUMMARY="$action_dir/summary" \
    GITHUB_REPOSITORY=octo-org/octo-repo GITHUB_REF=refs/pull/1/merge GITHUB_RUN_ID=1 INPUT_COMMAND=run \
    "$java_bin" "${flags[@]}" -XX:DumpLoadedClassList="$scratch/action.classlist" -jar "$out/app/countersign.jar" \
    action >"$scratch/action.log" 2>&1) \
    || { cat "$scratch/action.log" >&2; echo "build-runtime: the Action training run failed" >&2; exit 1; }
  grep -qx 'result=noop' "$action_dir/output" \
    || { cat "$scratch/action.log" >&2; echo "build-runtime: the Action training run was not a no-op" >&2; exit 1; }
  action_list="$scratch/action.classlist"
else
  log "no git here: the Action's no-op path comes from the committed class list only"
fi

stack_dir="${SIGSTORE_STACK_DIR:-$repo_root/target/sigstore-test-stack}"
keyless_list=""
if [[ -f "$stack_dir/server.mjs" && -d "$stack_dir/node_modules" ]] && command -v node >/dev/null \
   && (( $(node -p 'process.versions.node.split(".")[0]') >= 20 )); then
  log "keyless training run against the loopback Sigstore test stack"
  stack_out="$scratch/stack"
  node "$stack_dir/server.mjs" --out "$stack_out" --port 0 --latency-ms 0 >"$scratch/stack.log" 2>&1 &
  stack_pid=$!
  trap 'kill "$stack_pid" 2>/dev/null || true; rm -rf "$scratch"' EXIT
  for _ in $(seq 1 300); do [[ -f "$stack_out/stack.json" ]] && break; sleep 0.1; done
  [[ -f "$stack_out/stack.json" ]] || { cat "$scratch/stack.log" >&2; echo "build-runtime: the test stack did not start" >&2; exit 1; }
  "$jdk_bin/keytool" -importcert -noprompt -alias sigstore-test-stack -file "$stack_out/tls-ca.pem" \
    -keystore "$scratch/trust.p12" -storetype PKCS12 -storepass changeit >/dev/null 2>&1
  repo="$scratch/keyless-repo"
  git_q init --bare "$scratch/origin.git"
  git_q clone "$scratch/origin.git" "$repo"
  cp -r "$repo_root/docs/example/unsigned" "$repo/unsigned"
  git_q -C "$repo" add -A
  git_q -C "$repo" commit -m "manifests to sign"
  git_q -C "$repo" push origin HEAD:main
  # The stack's GitHub Actions token variables, in this command's environment only.
  mapfile -t stack_env < <(grep -E '^[A-Z_]+=' "$stack_out/stack.env")
  (cd "$repo" && env "${stack_env[@]}" "$java_bin" "${flags[@]}" -XX:DumpLoadedClassList="$scratch/keyless.classlist" \
    -Djavax.net.ssl.trustStore="$scratch/trust.p12" -Djavax.net.ssl.trustStorePassword=changeit \
    -jar "$out/app/countersign.jar" run --no-push \
    --trusted-root "$stack_out/trusted_root.json" --signing-config "$stack_out/signing_config.json" >"$scratch/keyless.log" 2>&1) \
    || { cat "$scratch/keyless.log" >&2; echo "build-runtime: the keyless training run failed" >&2; exit 1; }
  kill "$stack_pid" 2>/dev/null || true
  keyless_list="$scratch/keyless.classlist"
  if [[ "$update_class_list" == 1 ]]; then
    # The lambda-proxy and lambda-form-invoker lines are kept: without them the image build
    # (no node, no git) archived only the verify run's lambdas, and the Action's no-op step
    # spun ~150 lambda classes at run time (docs/performance.md, "The image's no-op step").
    # A line whose lambda no longer exists after a code change is skipped by the dump.
    cat "$keyless_list" ${action_list:+"$action_list"} | awk '!seen[$0]++' >"$committed_list"
    log "wrote $(grep -vc '^@' "$committed_list") class names and $(grep -c '^@' "$committed_list") lambda lines to ${committed_list#"$repo_root"/}"
  fi
elif [[ -f "$committed_list" ]]; then
  log "no test stack or node >= 20 here: keyless classes from ${committed_list#"$repo_root"/}"
  keyless_list="$committed_list"
else
  log "no test stack and no committed class list: the archive covers the verify run only"
fi
awk '!seen[$0]++' "$scratch/verify.classlist" ${keyless_list:+"$keyless_list"} ${action_list:+"$action_list"} >"$scratch/all.classlist"
"$java_bin" -Xshare:dump -XX:SharedClassListFile="$scratch/all.classlist" \
  -XX:SharedArchiveFile="$out/app/countersign.jsa" -jar "$out/app/countersign.jar" >"$scratch/cds.log" 2>&1 \
  || { tail -30 "$scratch/cds.log" >&2; exit 1; }
log "AppCDS archive: $(grep -c . "$scratch/all.classlist") listed classes ($(grep -ci 'warning' "$scratch/cds.log" || true) warnings)"

# 6. A launcher for local use; the image's ENTRYPOINT is the same command in exec form.
mkdir -p "$out/bin"
{
  echo '#!/bin/sh'
  echo '# Generated by .ci/build-runtime.sh: the container ENTRYPOINT as a script.'
  printf 'exec "%s"' "$java_bin"
  while IFS= read -r flag; do printf ' "%s"' "$flag"; done <"$out/jvm.options"
  printf ' $JAVA_OPTS -jar "%s" "$@"\n' "$out/app/countersign.jar"
} >"$out/bin/countersign"
chmod +x "$out/bin/countersign"

log "done: $(du -sh "$out/jre" | cut -f1) JRE, $(du -sh "$out/app" | cut -f1) app (archive $(du -sh "$out/app/countersign.jsa" | cut -f1)), total $(du -sh "$out" | cut -f1)"
"$out/bin/countersign" --version
