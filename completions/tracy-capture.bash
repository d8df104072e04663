# bash completion for tracy-capture
_tracy_capture()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -o|--output|--recover|--spool|--summary-json|--csv)
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
        --require)
            # a comma-separated list: complete its last name
            local last=${cur##*,}
            COMPREPLY=( $(compgen -P "${cur%"$last"}" -W 'zones frames messages plots locks memory callstacks sampling context-switches gpu source-files' -- "$last") )
            compopt -o nospace 2>/dev/null
            return ;;
        --format)
            COMPREPLY=( $(compgen -W '0.14 0.14.0 0.13 0.13.0 0.13.1 0.12 0.12.0 0.12.1 0.12.2 0.11.2 5479a42 0.11.1 0.11 0.11.0 0.10 0.10.0' -- "$cur") )
            return ;;
        -z|--zstd)
            COMPREPLY=( $(compgen -W '1 2 3 6 9 19 22' -- "$cur") )
            return ;;
        -j|--streams)
            COMPREPLY=( $(compgen -W '1 2 4 8 -1' -- "$cur") )
            return ;;
        --strip)
            # tracy-update -s's letters, any together
            COMPREPLY=( $(compgen -W 'l m p M i c s C S lmpMicsCS' -- "$cur") )
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=( $(compgen -W '-o --output -a --address -p --port -f --force
            -s --seconds -m --memlimit --connect-timeout --end-timeout
            --recover --spool --keep-spool --no-spool --protocol --format
            -z --zstd --lz4 --lz4hc --lz4-extreme -j --streams --strip --require --summary-json --csv --csv-args -q --quiet -h --help -V --version' -- "$cur") )
    fi
}
complete -F _tracy_capture tracy-capture
