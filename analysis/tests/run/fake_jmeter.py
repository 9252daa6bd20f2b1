"""A stand-in for JMeter non-GUI, run as a script: it writes a JTL second by second, faster than real time, and
listens on its command port as JMeter does (JMeter.java, startUdpDdaemon/waitForSignals).

    python fake_jmeter.py -l results.jtl -Jduration_s=40 -Jjmeterengine.nongui.port=P -Jjmeterengine.nongui.maxport=P
                          --mode steady|noisy|stubborn --second-s 0.1 --commands commands.txt

Each JTL second takes `--second-s` of real time. Its rows: 50 answers a second (49 and 51 alternating), each of
elapsed 200 ms in the first 10 s (a warm-up) and 20 ms (19 and 21 alternating) after it (`steady`); `noisy` alternates
10 and 90 answers a second with elapsed 5 or 200 ms, so that no interval is narrow. Every row ends inside its second
(start = second + 0.98 s − elapsed), so the rows of second k are written before any of second k+1.
"Shutdown" ends it after the second in progress is written (a graceful stop: the samples in flight end); `stubborn`
ignores Shutdown and ends only on "StopTestNow". Without a command it ends at duration_s, as a thread group does.
Every command received is appended to `--commands`, one a line, with the port it arrived on.
"""

import argparse
import socket
import sys
import time

T0 = 1_700_000_000_000


def rows_of(second: int, mode: str) -> list[tuple[int, int]]:
    """(start ms, elapsed ms) of the answers completing in JTL second `second`."""
    if mode == "noisy":
        n, elapsed = (10, 5) if second % 2 else (90, 200)
        return [(T0 + second * 1000 + 980 - elapsed, elapsed)] * n
    n = 49 if second % 2 else 51
    out = []
    for i in range(n):
        elapsed = 200 if second < 10 else (19 if i % 2 else 21)
        end = T0 + second * 1000 + 980 - (n - 1 - i) * 5  # spread over the second's last ~0.25 s, in end order
        out.append((end - elapsed, elapsed))
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("-l", dest="jtl", required=True)
    parser.add_argument("--mode", default="steady")
    parser.add_argument("--second-s", type=float, default=0.1)
    parser.add_argument("--commands", required=True)
    args, rest = parser.parse_known_args()
    props = dict(a[2:].split("=", 1) for a in rest if a.startswith("-J"))
    port, maxport = int(props["jmeterengine.nongui.port"]), int(props["jmeterengine.nongui.maxport"])
    assert port == maxport, (port, maxport)
    duration = int(float(props["duration_s"]))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("", port))  # JMeter's new DatagramSocket(port): the wildcard address
    udp.setblocking(False)
    print(f"Waiting for possible Shutdown/StopTestNow/HeapDump/ThreadDump message on port {port}", flush=True)
    ending = False
    with open(args.jtl, "w") as jtl:
        jtl.write("timeStamp,elapsed,label,responseCode,success,threadName,allThreads\n")
        for second in range(duration):
            for start, elapsed in rows_of(second, args.mode):
                jtl.write(f"{start},{elapsed},GET /,200,true,Thread Group 1-1,50\n")
            jtl.flush()
            time.sleep(args.second_s)
            try:
                while True:
                    command = udp.recv(80).decode("ascii")
                    with open(args.commands, "a") as f:
                        f.write(f"{command} {port}\n")
                    if command == "StopTestNow" or (command == "Shutdown" and args.mode != "stubborn"):
                        ending = True
            except BlockingIOError:
                pass
            if ending:
                break
    print("... end of run", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
