# syntax=docker/dockerfile:1
# The littlegrid sample server (system under test), built from source into the same jar as
# `./mvnw -pl server package`. Build from the repository root:
#   docker build -f docker/server.Dockerfile -t littlegrid-server .
#   docker run --rm -p 8080:8080 -p 8081:8081 -e SERVER_TOMCAT_THREADS_MAX=10 littlegrid-server
# Knobs: environment variables (SERVER_TOMCAT_THREADS_MAX, LITTLEGRID_THROTTLE_MAXCONCURRENT, ...) or
# arguments after the image name (--server.tomcat.threads.max=10); JVM options: JAVA_TOOL_OPTIONS.
# The actuator (/actuator/health, /actuator/prometheus) answers on its own port, 8081, with its own Tomcat
# threads, so health checks and scrapes never wait behind the load in a saturated pool.
# Change the ports with -e SERVER_PORT=… and -e MANAGEMENT_SERVER_PORT=…, not with arguments: the HEALTHCHECK
# reads MANAGEMENT_SERVER_PORT.

# ---- build stage: Maven 3.9 on JDK 17; the server module builds on its own (its parent is Spring Boot's)
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /build
# Dependencies first, so a source change does not download them again.
COPY server/pom.xml server/pom.xml
RUN mvn -B -q -f server/pom.xml dependency:go-offline
COPY server/src server/src
# Tests run in CI against a real port; the image build only packages.
RUN mvn -B -q -f server/pom.xml -DskipTests package \
 && test -f server/target/littlegrid-server.jar

# ---- runtime stage: JRE only, unprivileged user
FROM eclipse-temurin:17-jre
# curl for the HEALTHCHECK: a JVM-based probe would cost the system under test a core-second per check.
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 littlegrid \
 && useradd --system --uid 10001 --gid littlegrid --home-dir /app --shell /usr/sbin/nologin littlegrid
WORKDIR /app
COPY --from=build --chown=root:root /build/server/target/littlegrid-server.jar /app/littlegrid-server.jar
USER 10001:10001
ENV SERVER_PORT=8080 MANAGEMENT_SERVER_PORT=8081
EXPOSE 8080 8081
# UP only once the server is ready (readiness state and the /cpu calibration); start-up takes a few seconds.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${MANAGEMENT_SERVER_PORT}/actuator/health" || exit 1
ENTRYPOINT ["java", "-jar", "/app/littlegrid-server.jar"]
