# Shared helpers of the launcher: messages, state folders, package installs.

TB_STATE="${TB_STATE:-$TB_ROOT/.tradebench}"   # git-ignored: database, logs, pids
TB_TOOLS="$TB_ROOT/tools"                       # git-ignored: tools the launcher installs

say()  { printf 'tradebench: %s\n' "$*" >&2; }
die()  { printf 'tradebench: error: %s\n' "$*" >&2; exit 1; }

# apt_install PKG...: install Debian packages when we may (root + apt-get).
# Returns non-zero (and says why) when that is impossible here.
TB_APT_UPDATED=""
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    say "no apt-get on this machine: install $* with your package manager"; return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"
    else say "installing $* needs root: run 'sudo apt-get install $*'"; return 1; fi
  fi
  say "installing $* from the system's packages (apt-get)"
  if [ -z "$TB_APT_UPDATED" ]; then
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || true
    TB_APT_UPDATED=1
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# variant_names: the variants of this tree (folders holding a variant.yaml; harness/tradebench_harness/variants.py).
variant_names() {
  local m
  for m in "$TB_ROOT"/*/variant.yaml; do [ -f "$m" ] && basename "$(dirname "$m")"; done
  return 0
}
