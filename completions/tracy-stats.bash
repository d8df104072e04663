# bash completion for tracy-stats
_tracy_stats()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -f|-s)
            return ;;
        --release)
            COMPREPLY=( $(compgen -W '0.10 0.11.0 0.11.1 5479a42 0.12.0 0.12.1 0.12.2 0.13.0 0.13.1 0.14.0' -- "$cur") )
            return ;;
    esac
    if [[ $cur == --release=* ]]; then
        COMPREPLY=( $(compgen -P --release= -W '0.10 0.11.0 0.11.1 5479a42 0.12.0 0.12.1 0.12.2 0.13.0 0.13.1 0.14.0' -- "${cur#--release=}") )
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=( $(compgen -W '-f --filter= -c --case -s --sep= -e --self -u --unwrap -g --gpu
            -m --messages -p --plot -t --truncated_mean --truncated_mean= --release --release=
            -h --help -V --version' -- "$cur") )
        return
    fi
    COMPREPLY=( $(compgen -f -X '!*.tracy' -- "$cur") $(compgen -d -- "$cur") )
}
complete -o filenames -F _tracy_stats tracy-stats
