# bash completion for tracy-capture
_tracy_capture()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -o|--output|--recover|--spool|--csv)
            COMPREPLY=( $(compgen -f -- "$cur") )
            return ;;
        -a|--address)
            COMPREPLY=( $(compgen -A hostname -- "$cur") )
            return ;;
        -p|--port|-s|--seconds|-m|--memlimit|--connect-timeout|--end-timeout|--csv-args)
            return ;;
        --protocol)
            COMPREPLY=( $(compgen -W '82 76 74 72 69 66 64 0.14 0.14.0 0.13 0.13.0 0.13.1 0.12 0.12.0 0.12.1 0.12.2 5479a42 0.11.1 0.11 0.11.0 0.10 0.10.0' -- "$cur") )
            return ;;
        --format)
            COMPREPLY=( $(compgen -W '0.14 0.14.0 0.13 0.13.0 0.13.1 0.12 0.12.0 0.12.1 0.12.2 0.11.2 5479a42 0.11.1 0.11 0.11.0 0.10 0.10.0' -- "$cur") )
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=( $(compgen -W '-o --output -a --address -p --port -f --force
            -s --seconds -m --memlimit --connect-timeout --end-timeout
            --recover --spool --keep-spool --no-spool --protocol --format -q --quiet -h --help -V --version
            --csv --csv-args' -- "$cur") )
    fi
}
complete -F _tracy_capture tracy-capture
