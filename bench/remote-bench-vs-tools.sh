#!/bin/sh
# The oracle for remote-bench: every metric with a reference tool (mbw, dd,
# bonnie++, fio, iperf3, openssl speed) measured side by side at matched
# sizes in alternating rounds; see bench/remote-bench-vs-tools.py --help.
exec python3 "$(dirname "$0")/remote-bench-vs-tools.py" "$@"
