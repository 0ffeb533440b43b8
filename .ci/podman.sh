# Sourced by .ci/build-image and .ci/container-test: podman from Debian and the settings it needs
# on CI-like machines (sandboxed VMs).
#
#   podman_tools   installs podman, buildah, runc, fuse-overlayfs, uidmap and mmdebstrap with apt
#                  when missing (needs root)
#   pm ARGS...     podman with those settings:
#     --runtime runc   crun (podman's default) refuses hosts with hybrid cgroups v1/v2 ("cgroups in
#                      hybrid mode not supported"); runc runs on both
#     --ulimit ...     podman raises nofile/nproc for rootful containers by default, which fails
#                      ("setrlimit: operation not permitted") where root lacks CAP_SYS_RESOURCE;
#                      these stay within this shell's hard limits (conmon caps nproc at 32768)

podman_tools() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman buildah fuse-overlayfs uidmap)
  command -v runc >/dev/null || missing+=(runc)
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  if ((${#missing[@]})); then
    echo "podman.sh: installing ${missing[*]} from Debian" >&2
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
  fi
}

podman_nofile="$(ulimit -Hn)"
[[ "$podman_nofile" == unlimited || "$podman_nofile" -gt 1048576 ]] && podman_nofile=1048576
podman_nproc="$(ulimit -Hu)"
[[ "$podman_nproc" == unlimited || "$podman_nproc" -gt 16384 ]] && podman_nproc=16384
# For `pm run` and `pm build`: the container limits.
PODMAN_LIMITS=(--ulimit "nofile=$podman_nofile:$podman_nofile" --ulimit "nproc=$podman_nproc:$podman_nproc")

pm() { podman --runtime runc "$@"; }
