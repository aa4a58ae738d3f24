# An orch inventory for a loopback lab of tests/lab/sshd-lab.sh, for the
# benches (sourced: . bench/lab-inventory.sh).
#   lab_inventory USER PORT N BASE PREFIX [KEYS]
# prints boards PREFIX1..PREFIXN at BASE.1..BASE.N, logging in as USER on
# PORT with the lab's key and known_hosts from folder KEYS (default lab,
# relative to the inventory file).
lab_inventory() {
	echo "defaults:"
	echo "  ssh: { user: $1, port: $2, identity: ${6:-lab}/id_ed25519, known_hosts: ${6:-lab}/known_hosts }"
	echo "boards:"
	li=1
	while [ $li -le "$3" ]; do
		echo "  $5$li: { ssh: { host: $4.$li } }"
		li=$((li + 1))
	done
}
