# syntax=docker/dockerfile:1
# The Java images: java-threads, java-akka and java-virtual (embedded Tomcat over engine-servlet
# and engine-jdbc; java-threads and java-virtual on engine-threads), java-spray-async (Akka HTTP over jasync-mysql)
# and java-spray-cluster (a member of java-spray-async's cluster), both on engine-spray, and the actor variants'
# Apache Pekko builds (java-akka/pekko, java-spray-async/pekko, java-spray-cluster/pekko, on engine-spray/pekko:
# the same sources, renamed at build time). Each is one module of the root pom packaged as one jar
# and run with the same JVM flags, so one Dockerfile serves them all; MODULE says which. Built
# from the repository root (it needs the root pom and the engine-* modules):
#   docker build -f docker/java.Dockerfile --build-arg MODULE=java-akka -t tradebench/java-akka .
# or, with the database beside it: docker compose up java-akka (see docs/docker.md).

# ---- build: Maven + JDK 25 ----
FROM maven:3.9.11-eclipse-temurin-25 AS build
# the module to build: a Java variant's folder (java-threads, java-akka, java-spray-async,
# java-virtual), java-spray-cluster, or a Pekko build (java-akka/pekko ...)
ARG MODULE
WORKDIR /src
# The whole tree, less what .dockerignore keeps out: Maven reads every module of the root
# pom even to build one (a new module needs no line here), and the Maven repository is a
# cache mount, so a change of sources does not download the dependencies again.
COPY . .
RUN test -n "$MODULE" && test -f "$MODULE/pom.xml" \
 || { echo "docker/java.Dockerfile builds a Java module: pass --build-arg MODULE=<its folder> (given: '$MODULE')" >&2; exit 1; }
# The jar is named for the module's folder, a nested one's path joined by dashes
# (java-akka/pekko: java-akka/pekko/target/java-akka-pekko.jar).
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -q -Dstyle.color=never -DskipTests -pl ${MODULE} -am package \
 && cp ${MODULE}/target/$(echo ${MODULE} | tr / -).jar /variant.jar

# ---- run: JRE 25 (the JDK of the published figures), non-root ----
FROM eclipse-temurin:25.0.3_9-jre
ARG MODULE
LABEL org.opencontainers.image.title="tradebench ${MODULE}"
RUN groupadd --system tradebench \
 && useradd --system --gid tradebench --create-home --home-dir /home/tradebench --shell /usr/sbin/nologin tradebench
# one name for every module: the entrypoint's exec form expands no variables
COPY --from=build /variant.jar /app/variant.jar
USER tradebench
WORKDIR /home/tradebench
# Settings: the environment names of contract section 5 (PORT, ENGINES, DB_HOST ...); a cluster
# member adds CLUSTER_SEEDS, CLUSTER_HOST and CLUSTER_PORT (remoting, 25520; the members reach
# each other on the compose network, which needs no EXPOSE).
ENV PORT=3000
EXPOSE 3000
# SIGTERM drains the engines and stores every sale before exit 0 (a cluster member also hands
# its partitions over): give it time (docker stop -t, or stop_grace_period in docker-compose.yml).
STOPSIGNAL SIGTERM
# The harness's JVM flags (harness/tradebench_harness/run/context.py, JVM_OPTS: on JDK 24+ it allows
# sun.misc.Unsafe, which Akka uses, for every variant); add more with JAVA_TOOL_OPTIONS.
ENTRYPOINT ["java", "--sun-misc-unsafe-memory-access=allow", "-XX:+UseParallelGC", "-Xss512k", "-XX:MaxRAMPercentage=75", "-jar", "/app/variant.jar"]
