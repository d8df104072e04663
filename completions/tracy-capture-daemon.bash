# bash completion for tracy-capture-daemon
_tracy_capture_daemon()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -o|--output)
            COMPREPLY=( $(compgen -d -- "$cur") )
            return ;;
        -a|--address)
            COMPREPLY=( $(compgen -A hostname -- "$cur") )
            return ;;
        -p|--port|-m|--memory|--memlimit|--filter-name|--filter-port|--max-clients|--idle-exit|--end-timeout|--threads)
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
        COMPREPLY=( $(compgen -W '-o --output -p --port -m --memory --memlimit
            --filter-name --filter-port -a --address --no-listen --max-clients
            --idle-exit --end-timeout --format
            -z --zstd --lz4 --lz4hc --lz4-extreme -j --streams --strip --threads -q --quiet -h --help -V --version' -- "$cur") )
    fi
}
complete -F _tracy_capture_daemon tracy-capture-daemon
