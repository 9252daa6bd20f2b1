# JMeter 5.6.3 with the suite's plugins, provisioned by the project's own Maven build (jmeter-maven-plugin, so the
# image has exactly what `./mvnw verify` uses), plus the littlegrid package, the plans and the grids.
# One image, two roles (docker/jmeter-entrypoint.sh):
#   engine       jmeter-server on RMI ports 1099 (registry) and 50000 (objects)
#   run GRID...  the controller: `littlegrid run GRID ...` with the engines named in the grid's remote_hosts
# Build from the repository root:  docker build -f docker/jmeter.Dockerfile -t littlegrid-jmeter .

FROM eclipse-temurin:17-jdk-noble AS jmeter
WORKDIR /build
COPY mvnw pom.xml ./
COPY .mvn .mvn
COPY timer timer
# The plans' think-time timer first (installed in this stage's Maven repository, where the root finds it); then
# -N: the root project only; its initialize phase installs JMeter under target/<id>/jmeter, the timer's jar in
# lib/ext, and records the path in target/config.json.
RUN ./mvnw -q -B -f timer/pom.xml install \
 && ./mvnw -q -B -N initialize \
 && home="$(grep -o '"jmeterDirectoryPath":"[^"]*"' target/config.json | head -n 1 | cut -d '"' -f 4)" \
 && test -f "$home/bin/ApacheJMeter-5.6.3.jar" \
 && cp -r "$home" /opt/jmeter

# noble: Python 3.12 (littlegrid needs 3.11 or newer)
FROM eclipse-temurin:17-jre-noble
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv \
 && rm -rf /var/lib/apt/lists/*
COPY --from=jmeter /opt/jmeter /opt/jmeter
ENV JMETER_HOME=/opt/jmeter
COPY analysis/pyproject.toml /src/analysis/pyproject.toml
COPY analysis/src /src/analysis/src
RUN python3 -m venv /opt/littlegrid \
 && /opt/littlegrid/bin/pip install --no-cache-dir /src/analysis \
 && rm -rf /src
ENV PATH=/opt/littlegrid/bin:$PATH
# pom.xml marks /littlegrid as the checkout, so grids name their plan as in the repository (plans/closed.jmx).
WORKDIR /littlegrid
COPY pom.xml ./
COPY plans plans
COPY grids grids
COPY docker/distributed.toml docker/distributed.toml
COPY docker/jmeter-entrypoint.sh /usr/local/bin/jmeter-entrypoint.sh
RUN chmod +x /usr/local/bin/jmeter-entrypoint.sh \
 && groupadd --system --gid 10001 littlegrid \
 && useradd --system --uid 10001 --gid littlegrid --home-dir /littlegrid --shell /usr/sbin/nologin littlegrid \
 && mkdir -p /littlegrid/reports && chown littlegrid:littlegrid /littlegrid/reports
# Unprivileged: a load generator needs no root. A bind-mounted reports/ must be writable by uid 10001
# (or run the controller with `user: "<uid>:<gid>"` of the host folder's owner).
USER 10001:10001
EXPOSE 1099 50000
ENTRYPOINT ["/usr/local/bin/jmeter-entrypoint.sh"]
CMD ["engine"]
