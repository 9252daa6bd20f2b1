#!/bin/sh
# Entry point of the littlegrid JMeter image: `engine` (a jmeter-server) or `run ...` (the controller).
set -eu
jar="$(ls "$JMETER_HOME"/bin/ApacheJMeter-*.jar | head -n 1)"
case "${1:-engine}" in
  engine)
    # The engine must advertise a name the controller can reach (the compose service name), not its loopback.
    # RMI SSL is off: use these containers on a trusted network only (or configure rmi_keystore.jks).
    # The engine's log goes to JMETER_LOG, by default jmeter-server.log in the working folder.
    exec java -Xms"${JMETER_HEAP:-1g}" -Xmx"${JMETER_HEAP:-1g}" \
      -Djava.rmi.server.hostname="${RMI_HOSTNAME:-$(hostname)}" \
      -jar "$jar" -s -j "${JMETER_LOG:-jmeter-server.log}" \
      -Jserver_port="${RMI_PORT:-1099}" -Jserver.rmi.localport="${RMI_LOCAL_PORT:-50000}" \
      -Jserver.rmi.ssl.disable=true
    ;;
  run)
    shift
    # The engines call the controller back with results: it too must advertise a reachable name.
    export JAVA_TOOL_OPTIONS="${JAVA_TOOL_OPTIONS:-} -Djava.rmi.server.hostname=${RMI_HOSTNAME:-$(hostname)}"
    exec littlegrid run "$@"
    ;;
  *)
    exec "$@"
    ;;
esac
