#!/usr/bin/env bash
# Runs countersign's main job, the merged-PR pipeline, on the bundled example, offline:
# a bare git "origin", a clone as the workspace, three manifests under unsigned/, key-based
# signing with the demo key (password countersign-demo). Then verifies what landed on origin,
# shows that an edit is caught, and that a second run changes nothing.
set -euo pipefail

example="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$example/../.." && pwd)"
jar="$repo/target/countersign.jar"

if [[ ! -f "$jar" || -n "$(find "$repo/src/main" "$repo/pom.xml" -newer "$jar" -print -quit)" ]]; then
  echo "== building countersign (mvn -B -q -DskipTests package)"
  (cd "$repo" && mvn -B -q -DskipTests package)
fi
countersign() { java -jar "$jar" "$@"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/countersign-demo.XXXXXX")"
echo "== demo repository in $work"
git init -q --bare -b main "$work/origin.git"
git clone -q "$work/origin.git" "$work/workspace" 2>/dev/null
cp -r "$example/unsigned" "$work/workspace/"
git -C "$work/workspace" add -A
git -C "$work/workspace" -c user.name=author -c user.email=author@example.com commit -q -m "Add manifests for review"
git -C "$work/workspace" push -q origin HEAD:main

echo "== countersign run (sign unsigned/ -> signed/, one commit, push)"
export COSIGN_PASSWORD=countersign-demo
countersign run --repo "$work/workspace" --key "$example/demo.key"

echo "== origin/main now"
git -C "$work/origin.git" log --format='%h %s' main
git -C "$work/origin.git" ls-tree -r --name-only main

echo "== countersign verify (what Argo CD would deploy)"
mkdir -p "$work/deployed"
git -C "$work/origin.git" archive main signed | tar -x -C "$work/deployed"
countersign verify --key "$example/demo.pub" "$work/deployed/signed"

echo "== an edit after signing is rejected (exit code 1 expected)"
sed -i 's/port: 443/port: 8443/' "$work/deployed/signed/egress/allow-payments-api.yaml"
set +e
countersign verify --key "$example/demo.pub" "$work/deployed/signed"
status=$?
set -e
[[ $status -eq 1 ]] || { echo "expected exit code 1, got $status" >&2; exit 1; }

echo "== a second run is a no-op"
countersign run --repo "$work/workspace" --key "$example/demo.key"
echo "== done; files are in $work"
