# The official Compose CLI, for the static check of docker-compose.yml
# (harness/tradebench_harness/compose_check.py runs `docker-compose config`,
# which needs no Docker engine).
#
# The launcher builds the pinned Compose release (a Go module) with
# `go install` into the git-ignored tools/bin/docker-compose. Go: the system's
# `go` when it is 1.21 or newer (what Compose's go.mod asks for); else Debian's
# golang-go, and when that is older, the Go toolchain the Go module proxy
# serves (the module golang.org/toolchain, as `go` itself fetches a newer
# toolchain) unpacked into tools/go-$TB_GO_TOOLCHAIN.
# TB_COMPOSE=/path/to/docker-compose picks a Compose v2 binary by hand.

TB_COMPOSE_VERSION=v2.29.7                      # the pinned Compose release
TB_COMPOSE_MODULE=github.com/docker/compose/v2
TB_GO_MIN=1.21                                  # Compose's go.mod: go 1.21.0
TB_GO_TOOLCHAIN=1.22.12                         # fetched when the system's Go is older than TB_GO_MIN

# go_minor GO: the minor version of a Go binary (go1.22.12 -> 22; 0 when it does not run).
go_minor() {
  local v
  v=$("$1" env GOVERSION 2>/dev/null) || { echo 0; return; }
  v=${v#go1.}
  echo "${v%%[!0-9]*}"
}

# find_go: prints a Go binary of TB_GO_MIN or newer, installing one when there is none.
find_go() {
  local want=${TB_GO_MIN#1.} g
  for g in "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go /usr/lib/go/bin/go \
           "$TB_TOOLS/go-$TB_GO_TOOLCHAIN/bin/go"; do
    [ -n "$g" ] && [ -x "$g" ] && [ "$(go_minor "$g")" -ge "$want" ] && { echo "$g"; return 0; }
  done
  [ -x /usr/bin/go ] || apt_install golang-go || { say "building the Compose CLI needs Go $TB_GO_MIN+: install it"; return 1; }
  [ "$(go_minor /usr/bin/go)" -ge "$want" ] && { echo /usr/bin/go; return 0; }
  go_fetch_toolchain /usr/bin/go || return 1
  echo "$TB_TOOLS/go-$TB_GO_TOOLCHAIN/bin/go"
}

# go_fetch_toolchain GO: the Go toolchain TB_GO_TOOLCHAIN (module golang.org/toolchain on the Go module
# proxy) unpacked into tools/go-$TB_GO_TOOLCHAIN, downloaded by the older GO.
go_fetch_toolchain() {
  local mod="golang.org/toolchain@v0.0.1-go$TB_GO_TOOLCHAIN.linux-amd64" dir="$TB_TOOLS/go-$TB_GO_TOOLCHAIN" src tmp
  [ "$(uname -m)" = x86_64 ] && [ "$(uname -s)" = Linux ] \
    || { say "building the Compose CLI needs Go $TB_GO_MIN+: install it (the launcher only fetches the linux-amd64 toolchain)"; return 1; }
  say "fetching the Go $TB_GO_TOOLCHAIN toolchain ($mod) into tools/"
  tmp=$(mktemp -d)
  src=$(cd "$tmp" && GOFLAGS=-modcacherw GOMODCACHE="$tmp/mod" "$1" mod download -json "$mod" \
        | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  if [ -z "$src" ] || [ ! -f "$src/bin/go" ]; then
    rm -rf "$tmp"; say "could not fetch $mod from the Go module proxy"; return 1
  fi
  # a module keeps no file modes: the toolchain's programs are made executable again, as go does
  mkdir -p "$TB_TOOLS" && rm -rf "$dir" && cp -r "$src" "$dir" && chmod -R u+w "$dir" \
    && chmod +x "$dir"/bin/* "$dir"/pkg/tool/*/* && rm -rf "$tmp"
  [ "$(go_minor "$dir/bin/go")" -ge "${TB_GO_MIN#1.}" ] || { say "tools/go-$TB_GO_TOOLCHAIN/bin/go does not run"; return 1; }
}

# compose_is BIN [VERSION]: BIN is a Compose v2 CLI (of VERSION, when given).
compose_is() {
  local out
  out=$("$1" version 2>/dev/null) || return 1
  case "$out" in "Docker Compose version ${2:-v2.}"*) return 0 ;; *) return 1 ;; esac
}

# compose_install: exports TB_COMPOSE, the Compose CLI the check runs; builds the pinned one into
# tools/bin when it is not there. Returns non-zero (and says why) when that is impossible.
compose_install() {
  if [ -n "${TB_COMPOSE:-}" ]; then
    compose_is "$TB_COMPOSE" || { say "TB_COMPOSE=$TB_COMPOSE is not a Compose v2 CLI"; return 1; }
    export TB_COMPOSE; return 0
  fi
  local bin="$TB_TOOLS/bin/docker-compose" go tmp
  if ! compose_is "$bin" "$TB_COMPOSE_VERSION"; then
    go=$(find_go) || return 1
    say "building the Compose CLI $TB_COMPOSE_VERSION into tools/bin (go install $TB_COMPOSE_MODULE/cmd, $("$go" env GOVERSION))"
    tmp=$(mktemp -d)
    # Compose's release builds set their version at link time; without it, it says "dev"
    if ! GOBIN="$tmp" GOFLAGS=-buildvcs=false "$go" install \
         -ldflags "-X $TB_COMPOSE_MODULE/internal.Version=$TB_COMPOSE_VERSION" \
         "$TB_COMPOSE_MODULE/cmd@$TB_COMPOSE_VERSION" >&2 || [ ! -x "$tmp/cmd" ]; then
      rm -rf "$tmp"; say "go install $TB_COMPOSE_MODULE/cmd@$TB_COMPOSE_VERSION failed"; return 1
    fi
    mkdir -p "$TB_TOOLS/bin" && mv "$tmp/cmd" "$bin" && rm -rf "$tmp"
    compose_is "$bin" "$TB_COMPOSE_VERSION" || { say "tools/bin/docker-compose does not say $TB_COMPOSE_VERSION"; return 1; }
  fi
  TB_COMPOSE="$bin"
  export TB_COMPOSE
}
