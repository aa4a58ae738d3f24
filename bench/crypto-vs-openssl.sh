#!/bin/sh
# remote-bench-crypto next to a straightforward portable reference on the
# same machine: `openssl speed` with OPENSSL_ia32cap=0 (no AES-NI, no
# PCLMULQDQ, no SSE/AVX code paths: OpenSSL's integer-only code, as a board
# without crypto extensions runs it) and -elapsed (wall-clock time, as
# remote-bench measures). For each algorithm and round the two run back to
# back, the order alternating from one pair to the next; the medians and
# the best of the rounds and their ratios (remote-bench / openssl) are
# printed. The target is a ratio >= 0.5 (within 2x); exits 1 when both
# the medians' and the best runs' ratio of a metric are below (on a shared
# machine other work only slows runs down: the best run is the least
# disturbed one).
#   bench/crypto-vs-openssl.sh [--rounds N] [--seconds S] [--only A,B] [PROGRAM]
# PROGRAM is a remote-bench-crypto binary (default: a fresh static musl build
# of this tree for the host, as orch pushes it, in a temporary directory).
#
# Counterparts (the names bench/remote-bench-vs-tools.sh uses too):
#   chacha20 -evp chacha20, chacha20poly1305 -evp chacha20-poly1305,
#   aes128_cbc -evp aes-128-cbc, aes128_gcm -evp aes-128-gcm, x25519 ecdhx25519
# at -bytes 64 and 1500 (pkt/s compared). `openssl speed -evp` streams one
# context (no per-packet IV or tag); remote-bench seals each packet whole,
# which costs it most at 64 bytes. For the two AEADs a second row compares
# with `openssl speed -aead` (each packet sealed whole, with a 13-byte AAD,
# as TLS does): like for like, informative only (the verdict uses -evp).
# hello has no openssl counterpart.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
rounds=3
seconds=1
only=chacha20,chacha20poly1305,aes128_cbc,aes128_gcm,x25519
prog=
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	-h|--help) sed -n '2,25p' "$0"; exit 0 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) prog=$1; shift ;;
	esac
done
case "$rounds$seconds" in *[!0-9]*) echo "--rounds and --seconds take whole numbers" >&2; exit 2 ;; esac
for t in openssl python3; do
	command -v $t >/dev/null 2>&1 || { echo "missing $t" >&2; exit 2; }
done

work=$(mktemp -d)
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -z "$prog" ]; then
	case "$(uname -m)" in
	x86_64) arch=x86_64 ;; i?86) arch=i586 ;; aarch64) arch=aarch64 ;; armv5*|armv6*) arch=armv5 ;;
	armv7*) arch=armhf ;; *) echo "no remote-bench arch for $(uname -m)" >&2; exit 2 ;;
	esac
	sh "$src/scripts/build-remote-bench.sh" "$work/bin" "$arch" >"$work/build.log" 2>&1 ||
		{ cat "$work/build.log" >&2; exit 1; }
	prog=$work/bin/$arch/remote-bench-crypto
fi

evp_name() {
	case "$1" in
	chacha20) echo chacha20 ;; chacha20poly1305) echo chacha20-poly1305 ;;
	aes128_cbc) echo aes-128-cbc ;; aes128_gcm) echo aes-128-gcm ;;
	esac
}

# Each result is one line "round side metric pkt_or_ops_per_s" in $work/results.
ours() { # ours ROUND ALG
	"$prog" --only "$2" --time "$((seconds * 2))" --repeats 1 |
		python3 -c 'import json,sys
for l in sys.stdin:
    o = json.loads(l)
    m = o["metric"]
    if o["unit"] in ("pkt/s", "ops/s"):
        print(sys.argv[1], "remote-bench", m[len("crypto."):].replace("_pps", ""), o["value"])' "$1" \
		>>"$work/results"
}
theirs() { # theirs ROUND ALG
	if [ "$2" = x25519 ]; then
		OPENSSL_ia32cap=0 openssl speed -mr -elapsed -seconds "$seconds" ecdhx25519 2>/dev/null |
			awk -v r="$1" -F: '/^\+F5:/ { print r, "openssl", "x25519", $4 }' >>"$work/results"
		return
	fi
	for n in 64 1500; do
		OPENSSL_ia32cap=0 openssl speed -mr -elapsed -seconds "$seconds" -bytes $n \
			-evp "$(evp_name "$2")" 2>/dev/null |
			awk -v r="$1" -v m="$2_$n" -v n=$n -F: '/^\+F:/ { print r, "openssl", m, $4 / n }' \
			>>"$work/results"
		case "$2" in chacha20poly1305|aes128_gcm) ;; *) continue ;; esac
		# -aead: one packet sealed whole (IV, 13-byte AAD, data, tag), like for like
		OPENSSL_ia32cap=0 openssl speed -mr -elapsed -seconds "$seconds" -bytes $n -aead \
			-evp "$(evp_name "$2")" 2>/dev/null |
			awk -v r="$1" -v m="$2_$n" -v n=$n -F: '/^\+F:/ { print r, "openssl-aead", m, $4 / n }' \
			>>"$work/results"
	done
}

: >"$work/results"
pair=0
r=1
while [ $r -le "$rounds" ]; do
	for alg in $(echo "$only" | tr , ' '); do
		case "$alg" in
		chacha20|chacha20poly1305|aes128_cbc|aes128_gcm|x25519) ;;
		*) echo "no openssl counterpart for '$alg'" >&2; exit 2 ;;
		esac
		if [ $((pair % 2)) -eq 0 ]; then
			ours $r "$alg"; theirs $r "$alg"
		else
			theirs $r "$alg"; ours $r "$alg"
		fi
		pair=$((pair + 1))
	done
	echo "round $r of $rounds done" >&2
	r=$((r + 1))
done

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(openssl version | cut -d' ' -f1-2); $rounds rounds, ${seconds} s per openssl run"
echo "# CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results" <<'EOF'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    _, side, metric, v = line.split()
    vals.setdefault(metric, {}).setdefault(side, []).append(float(v))
order = ["chacha20_64", "chacha20_1500", "chacha20poly1305_64", "chacha20poly1305_1500",
         "aes128_cbc_64", "aes128_cbc_1500", "aes128_gcm_64", "aes128_gcm_1500", "x25519"]
print("| metric | unit | remote-bench median | openssl median | ratio | remote-bench best | openssl best | ratio |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
bad = 0
for m in order:
    if m not in vals:
        continue
    ours = vals[m].get("remote-bench", [])
    theirs = vals[m].get("openssl", [])
    if not ours or not theirs:
        print("| crypto.%s | - | %s | %s | missing | | | |" % (m, ours, theirs))
        bad = 1
        continue
    a, b = statistics.median(ours), statistics.median(theirs)
    ba, bb = max(ours), max(theirs)
    unit = "ops/s" if m == "x25519" else "pkt/s"
    ok = a / b >= 0.5 or ba / bb >= 0.5
    bad |= not ok
    print("| crypto.%s | %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f%s |"
          % (m, unit, a, b, a / b, ba, bb, ba / bb, "" if ok else " BELOW 0.5"))
    aead = vals[m].get("openssl-aead", [])
    if aead:
        c, bc = statistics.median(aead), max(aead)
        print("| %s vs `-aead` | %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f |"
              % (m, unit, a, c, a / c, ba, bc, ba / bc))
sys.exit(1 if bad else 0)
EOF
