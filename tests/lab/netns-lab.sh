#!/bin/bash
# A lab of boards in network namespaces, for multi-host tests (iperf3 over a
# plain link and over WireGuard):
#
#   PREFIX-br   a bridge namespace: bridge br0, one veth port per board
#   PREFIX-vm   the "vm" (server) board, 10.NET.0.1
#   PREFIX-cK   client board K (1..N),   10.NET.0.(10+K)
#   PREFIXh     a veth from the root namespace into br0, 10.NET.0.254, so
#               the controller reaches every board's sshd (port 22)
#
# WireGuard (wireguard-go, userspace): PREFIXwgvm in the vm namespace at
# 10.(NET+1).0.1, listening on 10.NET.0.1:51820; PREFIXwgcK in client K at
# 10.(NET+1).0.(10+K), peered with the vm only.
#
# Each board runs its own sshd (own host key, root login with DIR/id_ed25519,
# DIR/known_hosts written for the controller). `up` also writes
# DIR/inventory.yaml (boards vm, client1..clientN). Addresses exist only on
# interfaces this script creates; traffic never leaves these namespaces.
#
#   netns-lab.sh up   [--dir DIR] [--clients N] [--prefix P] [--net NET] [--no-wg]
#   netns-lab.sh down [--dir DIR] [--prefix P]
#
# Defaults: --dir /tmp/PREFIX, --clients 3, --prefix orchnl, --net 77.
# `down` kills every process left in the namespaces (sshd, wireguard-go,
# iperf3...), deletes namespaces and links; it is idempotent. A failure during
# `up` cleans up what was made. Needs root, iproute2, openssh-server, and for
# the tunnel wireguard-go and wireguard-tools.
set -euo pipefail

cmd=${1:-}
[ $# -gt 0 ] && shift
dir= clients=3 prefix=orchnl net=77 wg=1
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--clients) clients=$2; shift 2 ;;
	--prefix) prefix=$2; shift 2 ;;
	--net) net=$2; shift 2 ;;
	--no-wg) wg=0; shift ;;
	*) echo "netns-lab: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$dir" ] || dir=/tmp/$prefix

die() { echo "netns-lab: $*" >&2; exit 1; }

case $prefix in
	*[!a-z0-9]*|'') die "prefix '$prefix' must be lowercase letters and digits" ;;
esac
[ ${#prefix} -le 8 ] || die "prefix '$prefix' is longer than 8 characters"
case $clients in *[!0-9]*|'') die "--clients '$clients' is not a number" ;; esac
[ "$clients" -ge 1 ] && [ "$clients" -le 50 ] || die "--clients must be 1..50"
case $net in *[!0-9]*|'') die "--net '$net' is not a number" ;; esac
[ "$net" -ge 1 ] && [ "$net" -le 253 ] || die "--net must be 1..253"
tnet=$((net + 1))

brns=$prefix-br
hostif=${prefix}h

# Every namespace of this lab that exists now (vm, clients, bridge).
lab_namespaces() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${prefix}-(vm|c[0-9]+|br)\$" || true
}

kill_ns_pids() {
	local ns=$1 sig=$2 pids
	pids=$(ip netns pids "$ns" 2>/dev/null || true)
	[ -n "$pids" ] && kill "-$sig" $pids 2>/dev/null || true
}

down() {
	local ns
	for ns in $(lab_namespaces); do
		kill_ns_pids "$ns" TERM
	done
	local i
	for i in $(seq 1 20); do
		local left=
		for ns in $(lab_namespaces); do
			[ -n "$(ip netns pids "$ns" 2>/dev/null || true)" ] && left=1
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	for ns in $(lab_namespaces); do
		kill_ns_pids "$ns" KILL
	done
	ip link del "$hostif" 2>/dev/null || true
	for ns in $(lab_namespaces); do
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -f /var/run/wireguard/"${prefix}"wg*.sock
	if [ -d "$dir" ]; then
		rm -rf "$dir"/ns "$dir"/inventory.yaml "$dir"/known_hosts "$dir"/pids
	fi
}

wait_for_file_text() {   # FILE TEXT TIMEOUT_TENTHS
	local f=$1 text=$2 n=$3
	while [ "$n" -gt 0 ]; do
		grep -q "$text" "$f" 2>/dev/null && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# add_board NAME NS ADDR: namespace, veth into the bridge, sshd.
add_board() {
	local name=$1 ns=$2 addr=$3 d=$dir/ns/$2
	mkdir -p "$d"
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip -n "$brns" link add "$name" type veth peer name eth0 netns "$ns"
	ip -n "$brns" link set "$name" master br0 up
	ip -n "$ns" addr add "$addr/24" dev eth0
	ip -n "$ns" link set eth0 up

	ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$d/host_ed25519"
	cat >"$d/sshd_config" <<EOF
ListenAddress $addr:22
HostKey $d/host_ed25519
AuthorizedKeysFile $dir/authorized_keys
PidFile $d/sshd.pid
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
MaxStartups 200:30:400
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
	ip netns exec "$ns" /usr/sbin/sshd -D -e -f "$d/sshd_config" >"$d/sshd.log" 2>&1 &
	echo "$!" >>"$dir/pids"
	echo "$addr ssh-ed25519 $(awk '{print $2}' "$d/host_ed25519.pub")" >>"$dir/known_hosts"
}

# wg_iface NS IFNAME ADDR: a wireguard-go interface with a fresh key.
wg_iface() {
	local ns=$1 ifname=$2 addr=$3 d=$dir/ns/$1
	(umask 077; wg genkey >"$d/wg.key")
	wg pubkey <"$d/wg.key" >"$d/wg.pub"
	ip netns exec "$ns" wireguard-go -f "$ifname" >"$d/wireguard-go.log" 2>&1 &
	echo "$!" >>"$dir/pids"
	local n=50
	while [ ! -S /var/run/wireguard/"$ifname".sock ]; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || die "wireguard-go for $ifname did not start; see $d/wireguard-go.log"
		sleep 0.1
	done
	ip netns exec "$ns" wg set "$ifname" private-key "$d/wg.key"
	ip -n "$ns" addr add "$addr/24" dev "$ifname"
	ip -n "$ns" link set "$ifname" up
}

up() {
	[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
	command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || die "sshd missing (openssh-server)"
	if [ "$wg" = 1 ]; then
		command -v wireguard-go >/dev/null || die "wireguard-go missing (apt-get install wireguard-go)"
		command -v wg >/dev/null || die "wg missing (apt-get install wireguard-tools)"
	fi
	[ -z "$(lab_namespaces)" ] || die "a lab with prefix '$prefix' is up; run down first"
	trap 'rc=$?; if [ $rc -ne 0 ]; then echo "netns-lab: up failed; cleaning up" >&2; down; fi' EXIT
	mkdir -p "$dir" /run/sshd
	chmod 755 /run/sshd
	rm -rf "$dir/ns" "$dir/known_hosts" "$dir/pids"
	[ -f "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C netns-lab -f "$dir/id_ed25519"
	cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
	: >"$dir/known_hosts"

	ip netns add "$brns"
	ip -n "$brns" link set lo up
	ip -n "$brns" link add br0 type bridge
	ip -n "$brns" link set br0 up
	ip link add "$hostif" type veth peer name host netns "$brns"
	ip -n "$brns" link set host master br0 up
	ip addr add "10.$net.0.254/24" dev "$hostif"
	ip link set "$hostif" up

	add_board vm "$prefix-vm" "10.$net.0.1"
	local k
	for k in $(seq 1 "$clients"); do
		add_board "c$k" "$prefix-c$k" "10.$net.0.$((10 + k))"
	done

	if [ "$wg" = 1 ]; then
		wg_iface "$prefix-vm" "${prefix}wgvm" "10.$tnet.0.1"
		ip netns exec "$prefix-vm" wg set "${prefix}wgvm" listen-port 51820
		for k in $(seq 1 "$clients"); do
			local ns=$prefix-c$k ifname=${prefix}wgc$k
			wg_iface "$ns" "$ifname" "10.$tnet.0.$((10 + k))"
			ip netns exec "$ns" wg set "$ifname" peer "$(cat "$dir/ns/$prefix-vm/wg.pub")" \
				endpoint "10.$net.0.1:51820" allowed-ips "10.$tnet.0.1/32" \
				persistent-keepalive 25
			ip netns exec "$prefix-vm" wg set "${prefix}wgvm" peer "$(cat "$dir/ns/$ns/wg.pub")" \
				allowed-ips "10.$tnet.0.$((10 + k))/32"
		done
	fi

	local ns
	for ns in "$prefix-vm" $(for k in $(seq 1 "$clients"); do echo "$prefix-c$k"; done); do
		wait_for_file_text "$dir/ns/$ns/sshd.log" "Server listening" 50 ||
			die "sshd in $ns did not start; see $dir/ns/$ns/sshd.log"
	done

	{
		echo "# written by tests/lab/netns-lab.sh up --prefix $prefix --net $net"
		echo "defaults:"
		echo "  ssh: { user: root, identity: $dir/id_ed25519, known_hosts: $dir/known_hosts, host_key: strict }"
		echo "  workdir: /tmp/orch"
		echo "boards:"
		echo "  vm:"
		echo "    arch: x86_64"
		echo "    tags: [server]"
		echo "    ssh: { host: 10.$net.0.1 }"
		for k in $(seq 1 "$clients"); do
			echo "  client$k:"
			echo "    arch: x86_64"
			echo "    tags: [embedded]"
			echo "    ssh: { host: 10.$net.0.$((10 + k)) }"
		done
	} >"$dir/inventory.yaml"
	trap - EXIT
	echo "netns-lab: up: vm 10.$net.0.1 (tunnel 10.$tnet.0.1), $clients clients; inventory $dir/inventory.yaml"
}

case $cmd in
up) up ;;
down) down ;;
*) echo "usage: netns-lab.sh up|down [--dir DIR] [--clients N] [--prefix P] [--net NET] [--no-wg]" >&2; exit 2 ;;
esac
