#!/usr/bin/env bash
# Test of the docker-compose static check (scripts/lib/70-compose.sh): it passes
# on a copy of the tree, and fails on copies broken one thing at a time, naming
# what is broken. Run by `./tradebench test`; alone: bash scripts/test/compose-check-test.sh
set -uo pipefail
TB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export TB_ROOT
. "$TB_ROOT/scripts/lib/00-common.sh"
. "$TB_ROOT/scripts/lib/70-compose.sh"

compose_find_python || { echo "compose-check-test: no python3 with PyYAML"; exit 1; }
PY="$TB_COMPOSE_PY"
# copies are made 30 times: in memory where there is a tmpfs
tmp="${TMPDIR:-/tmp}"; [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
WORK=$(mktemp -d "$tmp/compose-check-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# A copy of the tree without builds, installs, state and history.
mkdir -p "$WORK/pristine"
(cd "$TB_ROOT" && tar --exclude=./.git --exclude=./.tradebench --exclude=./results --exclude=./tools \
   --exclude=target --exclude=node_modules -cf - .) | (cd "$WORK/pristine" && tar -xf -)
T="$WORK/t"

PASSED=0; FAILED=0
fresh() { rm -rf "$T"; cp -a "$WORK/pristine" "$T"; }

# yaml_edit PYTHON: edit docker-compose.yml of the copy; `doc` is the parsed file
# (anchors and merge keys resolved, nothing shared).
yaml_edit() {
  "$PY" - "$T/docker-compose.yml" "$1" <<'PY'
import json, sys, yaml
path, code = sys.argv[1], sys.argv[2]
with open(path) as f:
    doc = json.loads(json.dumps(yaml.safe_load(f)))
exec(code)
with open(path, "w") as f:
    yaml.safe_dump(doc, f, sort_keys=False)
PY
}

# expect_pass NAME / expect_fail NAME TEXT: run the check on the copy.
expect_pass() {
  local out
  if out=$(compose_check "$T" 2>&1); then
    PASSED=$((PASSED + 1)); echo "ok   $1"
  else
    FAILED=$((FAILED + 1)); echo "FAIL $1: the check failed on it:"; echo "$out" | sed 's/^/     /'
  fi
}
expect_fail() {
  local out rc=0
  out=$(compose_check "$T" 2>&1) || rc=$?
  if [ "$rc" -ne 0 ] && grep -qF -- "$2" <<<"$out"; then
    PASSED=$((PASSED + 1)); echo "ok   $1"
  elif [ "$rc" -eq 0 ]; then
    FAILED=$((FAILED + 1)); echo "FAIL $1: the check passed"
  else
    FAILED=$((FAILED + 1)); echo "FAIL $1: the check failed without saying '$2':"; echo "$out" | sed 's/^/     /'
  fi
}

fresh; expect_pass "the intact tree passes"

fresh; yaml_edit "pass"
expect_pass "the same file rewritten (anchors resolved) passes"

# services
fresh; yaml_edit "del doc['services']['java-akka']"
expect_fail "a variant service removed" "service java-akka is missing"
fresh; yaml_edit "del doc['services']['mysql']"
expect_fail "the mysql service removed" "service mysql is missing"
fresh; yaml_edit "del doc['services']['loadclient']"
expect_fail "the loadclient service removed" "service loadclient is missing"
fresh; yaml_edit "del doc['services']['loadclient']['profiles']"
expect_fail "loadclient without a profile" "service loadclient: not behind a profile"
fresh; yaml_edit "doc['services']['node-engine']['depends_on'] = ['mysql']"
expect_fail "a variant not waiting for a healthy mysql" "node-engine: does not depend on mysql with condition: service_healthy"
fresh; yaml_edit "doc['services']['java-threads']['depends_on'] = {'mysqld': {'condition': 'service_healthy'}}"
expect_fail "depends_on a service that does not exist" "depends on mysqld, which is not a service"
fresh; yaml_edit "del doc['services']['mysql']['healthcheck']"
expect_fail "mysql without a healthcheck" "service mysql: no healthcheck"

# Dockerfiles and the paths they COPY
fresh; rm "$T/java-spray-async/Dockerfile"
expect_fail "a Dockerfile removed" "Dockerfile java-spray-async/Dockerfile does not exist"
fresh; yaml_edit "doc['services']['java-threads']['build']['context'] = 'java-threadz'"
expect_fail "a build context that does not exist" "build context java-threadz does not exist"
fresh; awk '{print} /^FROM/ && !done {print "COPY no-such-dir /tmp/no-such-dir"; done=1}' \
  "$T/java-akka/Dockerfile" >"$T/x" && mv "$T/x" "$T/java-akka/Dockerfile"
expect_fail "a COPY of a path that does not exist" "COPY no-such-dir: no such path"
fresh; rm -rf "$T/engine-model/src"
expect_fail "a COPY'd folder gone from the tree" "COPY engine-model/src: no such path"
fresh; rm "$T/node-engine/package-lock.json"
expect_fail "node-engine's lock file gone" "COPY node-engine/package-lock.json: no such path"
fresh; echo "engine-model/src" >>"$T/.dockerignore"
expect_fail "a COPY'd path excluded by .dockerignore" "COPY engine-model/src: excluded by .dockerignore"
fresh; rm "$T/.dockerignore"
expect_fail ".dockerignore removed" "does not exclude engine-model/target"
fresh; sed -i 's#<module>loadclient</module>#<module>loadclient</module><module>new-module</module>#' "$T/pom.xml"
expect_fail "a root pom module not copied into the Maven build stage" "does not COPY new-module/pom.xml"
fresh; sed -i '/^USER/d' "$T/loadclient/Dockerfile"
expect_fail "an image running as root" "loadclient/Dockerfile (loadclient): the final stage runs as root"
fresh; sed -i 's/^FROM eclipse-temurin:[^ ]*/FROM eclipse-temurin/' "$T/java-threads/Dockerfile"
expect_fail "a base image without a version" "base image eclipse-temurin has no version tag"

# environment names
fresh; yaml_edit "doc['services']['java-threads']['environment']['DB_HOSTNAME'] = 'mysql'"
expect_fail "an environment name not in contract section 5" "service java-threads: environment name DB_HOSTNAME"
fresh; yaml_edit "doc['services']['node-engine']['environment'] = ['PORT=3000', 'ENGINE=4']"
expect_fail "an unknown name in list form" "service node-engine: environment name ENGINE"
fresh; yaml_edit "doc['services']['mysql']['environment']['MYSQL_ROOT_PASSWD'] = 'x'"
expect_fail "an unknown MYSQL_ name on mysql" "service mysql: environment name MYSQL_ROOT_PASSWD"

# host ports
fresh; yaml_edit "doc['services']['node-engine']['ports'] = list(doc['services']['java-akka']['ports'])"
expect_fail "two services on one host port" "is published by both java-akka and node-engine"
fresh; yaml_edit "doc['services']['java-threads']['ports'] = ['127.0.0.1:3316:3000']"
expect_fail "a variant on the database's host port" "host port 3316/tcp is published by both mysql and java-threads"
fresh; yaml_edit "doc['services']['java-akka']['ports'] = ['3002:8080']"
expect_fail "a variant whose PORT is not published" "java-akka: its PORT 3000 is not published"

# the schema mount
fresh; yaml_edit "v = doc['services']['mysql']['volumes']; v[:] = [x.replace('./schema.sql', './pom.xml') for x in v]"
expect_fail "the schema mount pointing at another file" "schema.sql is not mounted"
fresh; yaml_edit "v = doc['services']['mysql']['volumes']; v[:] = [x.replace('./schema.sql', './schema-old.sql') for x in v]"
expect_fail "the schema mount pointing at a missing file" "mounted path ./schema-old.sql does not exist"
fresh; yaml_edit "v = doc['services']['mysql']['volumes']; v[:] = [x.replace('/docker-entrypoint-initdb.d/', '/docker-entrypoint.d/') for x in v]"
expect_fail "the schema mounted outside the init folder" "schema.sql is not mounted"

# the file itself
fresh; printf 'services: [\n' >>"$T/docker-compose.yml"
expect_fail "a YAML syntax error" "does not parse"
fresh; printf 'name: again\n' >>"$T/docker-compose.yml"
expect_fail "a duplicate key" "duplicate key 'name'"

echo "compose-check-test: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
