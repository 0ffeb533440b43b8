#!/usr/bin/env bash
# Builds the small countersign runtime that the container image ships (the Dockerfile runs this
# script; run it locally to check it and to measure it, see docs/performance.md):
#
#   .ci/build-runtime.sh [OUT]          (default OUT: target/runtime; needs `mvn package` first)
#
# OUT/jre         a JRE made by jlink with only the modules jdeps finds in target/countersign.jar
#                 and target/lib (plus the service-provider modules jdeps cannot see)
# OUT/app         countersign.jar and lib/, the signed third-party jars unsigned (see below)
# OUT/app/countersign.jsa
#                 an AppCDS archive (-XX:ArchiveClassesAtExit) from a training run
# OUT/jvm.options the JVM flags of the launcher, one per line; the Dockerfile's ENTRYPOINT
#                 repeats them, OUT/bin/countersign uses them
#
# The archive stores absolute paths: build at the final location (the Dockerfile uses
# /opt/countersign in both stages). JAVA_HOME (or the java on PATH) must be a full JDK 17 with jmods.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
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
#      default initial heap (1/64 of RAM) is touched by allocation and shows up as RSS.
#    MaxRAMPercentage: a heap bound that follows the machine, without a fixed -Xmx.
#    SharedArchiveFile + Xshare:auto: the AppCDS archive below; a stale archive is not an error.
cat >"$out/jvm.options" <<EOF
-XX:+UseSerialGC
-XX:TieredStopAtLevel=1
-Xms64m
-XX:MinHeapFreeRatio=10
-XX:MaxHeapFreeRatio=30
-XX:MaxRAMPercentage=25
-XX:SharedArchiveFile=$out/app/countersign.jsa
-Xshare:auto
EOF

# 5. AppCDS training run: verify the bundled example (signed here with its demo key) with every
#    launcher flag, so the archive holds the classes of start-up, option parsing, YAML, the
#    signed-manifest format, keys and verification. The sign run itself is not archived.
java_bin="$out/jre/bin/java"
mapfile -t flags < <(grep -v SharedArchiveFile "$out/jvm.options")
mkdir -p "$scratch/example"
cp -r "$repo_root/docs/example/unsigned" "$scratch/example/"
COSIGN_PASSWORD=countersign-demo "$java_bin" "${flags[@]}" -jar "$out/app/countersign.jar" \
  sign --key "$repo_root/docs/example/demo.key" --out "$scratch/example/signed" "$scratch/example/unsigned" >/dev/null
"$java_bin" "${flags[@]}" -XX:ArchiveClassesAtExit="$out/app/countersign.jsa" -jar "$out/app/countersign.jar" \
  verify --key "$repo_root/docs/example/demo.pub" "$scratch/example/signed" >/dev/null 2>"$scratch/cds.log" \
  || { cat "$scratch/cds.log" >&2; exit 1; }

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
