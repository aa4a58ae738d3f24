# bash completion for orch(1): subcommands, their options, scenario and run
# folders, board names (for -l, `orch boot`, `orch lock`, `orch power`,
# `orch console`, `orch exec`), and where selectors go (-l, lock, power) group names and
# tags too, read from
# the inventory with `orch boards` (-i on the line, else the scenario's
# inventory:, else $ORCH_INVENTORY or the configuration files' inventory),
# and the scenario's test names and tags
# (for -t) read with `orch validate SCENARIO --list`.

_orch_inventory()
{
	local i scenario=
	for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
		case ${COMP_WORDS[i]} in
		-i | --inventory) echo "${COMP_WORDS[i + 1]}"; return ;;
		--inventory=*) echo "${COMP_WORDS[i]#--inventory=}"; return ;;
		*.yaml | *.yml) [ -z "$scenario" ] && scenario=${COMP_WORDS[i]} ;;
		esac
	done
	if [ -n "$scenario" ] && [ -r "$scenario" ]; then
		local inv
		inv=$(sed -n 's/^inventory:[[:space:]]*["'\'']\{0,1\}\([^"'\''#[:space:]]*\).*/\1/p' "$scenario" | head -n 1)
		if [ -n "$inv" ]; then
			case $inv in
			/*) echo "$inv" ;;
			*) echo "$(dirname -- "$scenario")/$inv" ;;
			esac
			return
		fi
	fi
	echo "${ORCH_INVENTORY:-}"
}

# board names, group names, tag:TAG, group:GROUP and their ! forms, from
# `orch boards --format json` (one "key": value a line)
_orch_selectors()
{
	local inv
	inv=$(_orch_inventory)
	orch boards ${inv:+-i "$inv"} --format json 2>/dev/null | awk '
		function value(s) { sub(/^[[:space:]]*("[^"]*": )?"/, "", s); sub(/",?[[:space:]]*$/, "", s); return s }
		/^[[:space:]]*"name": "/ { n = value($0); print n; print "!" n; next }
		/^[[:space:]]*"(tags|groups)": \[/ {
			list = ($0 ~ /"tags"/) ? "tag" : "group"; inlist = ($0 !~ /\]/); next }
		inlist && /^[[:space:]]*\]/ { inlist = 0; next }
		inlist { v = value($0); if (list == "tag") tags[v] = 1; else groups[v] = 1 }
		END { print "all"
		      for (t in tags) { print "tag:" t; print "!tag:" t }
		      for (g in groups) { print g; print "!" g; print "group:" g; print "!group:" g } }'
}

# the scenario on the line (the first *.yaml word after the command)
_orch_scenario()
{
	local i
	for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
		case ${COMP_WORDS[i]} in
		*.yaml | *.yml) [ -r "${COMP_WORDS[i]}" ] && echo "${COMP_WORDS[i]}"; return ;;
		esac
	done
}

# test names, tag:TAG and their ! forms
_orch_tests()
{
	local sc inv
	sc=$(_orch_scenario)
	[ -n "$sc" ] || return
	inv=$(_orch_inventory)
	orch validate "$sc" ${inv:+-i "$inv"} --list 2>/dev/null | awk -F'\t' '
		{ names[$2] = 1; n = split($3, tl, ","); for (i = 1; i <= n; i++) tags[tl[i]] = 1 }
		END { for (t in names) { print t; print "!" t }
		      for (t in tags) if (t != "") { print "tag:" t; print "!tag:" t } }'
}

_orch_boards()
{
	local inv
	inv=$(_orch_inventory)
	orch boards ${inv:+-i "$inv"} 2>/dev/null | cut -f1
}

_orch()
{
	local cur prev cmd
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	local commands
	commands="$(orch help 2>/dev/null | awk '$1 == "orch" { print $2 }' | sort -u)"
	local global="--color= -v --verbose --help --version"

	# the command: the first word that is not a global option
	local i
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-v | --verbose | --color | --color=*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$commands $global" -- "$cur"))
		return
	fi

	case $prev in
	-i | --inventory | --phases-from)
		COMPREPLY=($(compgen -f -X '!*.y*ml' -- "$cur") $(compgen -d -- "$cur"))
		return ;;
	-l | --limit)
		COMPREPLY=($(compgen -W "$(_orch_selectors)" -- "$cur"))
		return ;;
	-o | --runs-dir | --output | --bench-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--baseline)
		COMPREPLY=($(compgen -W "latest history" -- "$cur") $(compgen -d -- "$cur"))
		return ;;
	-e | --extra-vars)
		[[ $cur == @* ]] && COMPREPLY=($(compgen -P @ -f -X '!*.y*ml' -- "${cur#@}"))
		return ;;
	-t | --test)
		COMPREPLY=($(compgen -W "$(_orch_tests)" -- "$cur"))
		return ;;
	--format | -f)
		local formats
		case $cmd in
		compare) formats="table json junit" ;;
		history) formats="text runs csv json html" ;;
		run | who) formats="text json" ;;
		*) formats="json" ;;
		esac
		COMPREPLY=($(compgen -W "$formats" -- "$cur"))
		return ;;
	--trigger)
		COMPREPLY=($(compgen -W "power-cycle reboot none" -- "$cur"))
		return ;;
	--escape)
		COMPREPLY=($(compgen -W "'^]' ^A ^B ^T" -- "$cur"))
		return ;;
	--color)
		;;
	--max-size)
		return ;;
	-j | --jobs | --repeat | --threshold | --settle | --shard | --timeout | --for | --note)
		return ;;
	esac
	if [[ $cur == --color=* ]]; then
		COMPREPLY=($(compgen -W "--color=auto --color=always --color=never" -- "$cur"))
		return
	fi

	if [ "$cmd" = help ]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		# the options are read from the command's own --help, so they
		# never fall behind the program
		local opts
		opts=$(orch "$cmd" --help 2>/dev/null |
			grep -oE -- '(^|[[:space:],[])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,[' | sort -u)
		COMPREPLY=($(compgen -W "$opts --color= -v --verbose" -- "$cur"))
		return
	fi
	case $cmd in
	run | validate)
		COMPREPLY=($(compgen -f -X '!*.y*ml' -- "$cur") $(compgen -d -- "$cur")) ;;
	boot | unlock)
		COMPREPLY=($(compgen -W "$(_orch_boards)" -- "$cur")) ;;
	lock)
		COMPREPLY=($(compgen -W "$(_orch_selectors)" -- "$cur")) ;;
	power)
		COMPREPLY=($(compgen -W "$(_orch_selectors) on off cycle" -- "$cur")) ;;
	console)
		COMPREPLY=($(compgen -W "$(_orch_boards)" -- "$cur")) ;;
	exec)
		# the command on the boards: names of commands, then files
		COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur")) ;;
	copy | fetch)
		# SRC and DEST/DIR: the controller's files and folders
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	history)
		COMPREPLY=($(compgen -W "import" -- "$cur") $(compgen -f -X '!*.y*ml' -- "$cur")) ;;
	compare | report | merge)
		COMPREPLY=($(compgen -d -- "$cur")) ;;
	esac
}
complete -F _orch orch
