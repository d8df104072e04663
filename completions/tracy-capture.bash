# bash completion for tracy-capture
_tracy_capture()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -o|--output|--recover|--spool)
            COMPREPLY=( $(compgen -f -- "$cur") )
            return ;;
        -a|--address)
            COMPREPLY=( $(compgen -A hostname -- "$cur") )
            return ;;
        -p|--port|-s|--seconds|-m|--memlimit|--connect-timeout|--end-timeout)
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=( $(compgen -W '-o --output -a --address -p --port -f --force
            -s --seconds -m --memlimit --connect-timeout --end-timeout
            --recover --spool --keep-spool --no-spool -q --quiet -h --help -V --version' -- "$cur") )
    fi
}
complete -F _tracy_capture tracy-capture
