#!/bin/sh
# Entry point of the littlegrid JMeter image: `engine` (a jmeter-server) or `run ...` (the controller).
set -eu
jar="$(ls "$JMETER_HOME"/bin/ApacheJMeter-*.jar | head -n 1)"
case "${1:-engine}" in
  engine)
    # The engine must advertise a name the controller can reach (the compose service name), not its loopback.
    # RMI over SSL with the keystore the controller has too, at the same path (`littlegrid engines keystore`;
    # JMeter sends the path inside its RMI stubs). RMI_SSL=false turns SSL off: anyone reaching port 1099 can then
    # run code here, so only on a network you trust, and the grid must say [engines] ssl = false as well.
    # The engine's log goes to JMETER_LOG, by default jmeter-server.log in the working folder.
    keystore="${RMI_KEYSTORE:-/run/secrets/rmi_keystore}"
    if [ "${RMI_SSL:-true}" = "false" ]; then
      echo "warning: RMI SSL is off (RMI_SSL=false): anyone who reaches port ${RMI_PORT:-1099} can run code here" >&2
      ssl="-Jserver.rmi.ssl.disable=true"
    elif [ -r "$keystore" ]; then
      ssl="-Jserver.rmi.ssl.keystore.file=$keystore"
    else
      echo "engine: no readable RMI keystore at $keystore (littlegrid engines keystore --out docker/rmi_keystore.jks)" >&2
      exit 2
    fi
    exec java -Xms"${JMETER_HEAP:-1g}" -Xmx"${JMETER_HEAP:-1g}" \
      -Djava.rmi.server.hostname="${RMI_HOSTNAME:-$(hostname)}" \
      -jar "$jar" -s -j "${JMETER_LOG:-jmeter-server.log}" \
      -Jserver_port="${RMI_PORT:-1099}" -Jserver.rmi.localport="${RMI_LOCAL_PORT:-50000}" "$ssl"
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
