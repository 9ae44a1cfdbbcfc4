# bash completion for elog-tui: commands, each command's options, the values of
# --backend, --format and --sort (per command), *.eventlog files, and for --from, --to
# and --align the marker names of the (first) log on the line (read with
# `elog-tui markers FILE`). Installed as share/bash-completion/completions/elog-tui.

# The marker names of $1, one a line (none if it is not a readable log).
_elog_tui_markers()
{
    local bin=$1 file=$2
    [[ -r $file ]] || return 0
    "$bin" markers "$file" 2>/dev/null | while IFS=$'\t' read -r _ _ name; do
        printf '%s\n' "$name"
    done | tail -n +2 | sort -u
}

_elog_tui()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion -n := || return
    else
        # Without bash-completion: the words of the line up to the cursor, split on
        # blanks only (bash's own COMP_WORDS would also split "phase:write" at ':'),
        # backslash-escaped blanks kept inside a word.
        local line=${COMP_LINE:0:COMP_POINT}
        read -a words <<< "$line"
        [[ -z $line || ($line == *[[:blank:]] && $line != *\\[[:blank:]]) ]] && words+=("")
        cword=$((${#words[@]} - 1))
        cur=${words[cword]}
        prev=${words[cword - 1]}
    fi
    local bin=${words[0]}
    bin=${bin/#\~/$HOME}
    command -v "$bin" >/dev/null 2>&1 || bin=elog-tui

    local cmds="show stats gc markers threads heap ticky prof mmu worst diff snapshot export index scan"
    local listed
    listed=$("$bin" --list-commands 2>/dev/null) && cmds=$(printf '%s ' $listed)
    local view_opts="--backend --ascii --mono --no-mouse --align --alert-pause --follow --wait"

    # The command: the first word after the program that names one.
    local cmd="" file="" i
    for ((i = 1; i < cword; i++)); do
        local w=${words[i]}
        if [[ -z $cmd && " $cmds " == *" $w "* ]]; then
            cmd=$w
        elif [[ $w != -* && -z $file ]]; then
            case ${words[i - 1]} in
            --from | --to | --sort | --top | --size | --keys | --format | --backend | \
                --align | --cap | --window | --alert-pause) ;;
            *) file=$w ;;
            esac
        fi
    done

    case $prev in
    --backend)
        COMPREPLY=($(compgen -W "curses tickit" -- "$cur"))
        return
        ;;
    --format)
        COMPREPLY=($(compgen -W "chrome perfetto" -- "$cur"))
        return
        ;;
    --sort)
        case $cmd in
        threads) COMPREPLY=($(compgen -W "runtime id" -- "$cur")) ;;
        ticky) COMPREPLY=($(compgen -W "entries allocs" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "pause start" -- "$cur")) ;;
        esac
        return
        ;;
    --top | --size | --keys | --cap | --window)
        return
        ;;
    --from | --to | --align)
        local IFS=$'\n' name
        COMPREPLY=()
        local unq=$cur
        [[ $unq == [\"\']* ]] && unq=${unq:1}
        while IFS= read -r name; do
            [[ $name == "$unq"* ]] && COMPREPLY+=("$(printf '%q' "$name")")
        done < <(_elog_tui_markers "$bin" "$file")
        # bash replaces only the part of the word after its last ':' (a word break).
        if [[ $unq == *:* && $COMP_WORDBREAKS == *:* ]]; then
            local pre=${unq%"${unq##*:}"} i
            for i in "${!COMPREPLY[@]}"; do
                COMPREPLY[i]=${COMPREPLY[i]#"$(printf '%q' "$pre")"}
            done
        fi
        return
        ;;
    esac

    if [[ $cur == -* ]]; then
        local opts
        case $cmd in
        "") opts="$view_opts --help --version --print-config" ;;
        stats) opts="--from --to --histogram" ;;
        gc) opts="--sort --top --json --histogram" ;;
        markers) opts="--messages --json" ;;
        threads) opts="--sort --top --json" ;;
        heap) opts="--censuses --top --json" ;;
        ticky) opts="--sort --samples --top --json" ;;
        prof) opts="--from --to --cap --top --json" ;;
        mmu) opts="--from --to --cap --with-stop --json" ;;
        worst) opts="--window --top --from --to --cap --with-stop --json" ;;
        snapshot) opts="--size --from --to --keys --color --ascii --align" ;;
        export) opts="--format --from --to" ;;
        *) opts="" ;;
        esac
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi

    # Files: eventlogs (and directories to reach them); after the program, commands too.
    local IFS=$'\n'
    COMPREPLY=($(compgen -f -X '!*.eventlog' -- "$cur") $(compgen -d -- "$cur"))
    if [[ -z $cmd && -z $file ]]; then
        IFS=' '
        COMPREPLY+=($(compgen -W "$cmds" -- "$cur"))
    fi
    compopt -o filenames 2>/dev/null
}
complete -F _elog_tui elog-tui
