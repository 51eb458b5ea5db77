# bash completion for plandeck-agent                      -*- shell-script -*-
#
# Installed as bash-completion/completions/plandeck-agent, where
# bash-completion loads it the first time plandeck-agent is completed.
# tests/test-completions.py checks every list here against
# `plandeck-agent [COMMAND] --help`, so a new option fails the data suite
# until it is added here and in _plandeck-agent.

# The stored sessions' ids, from `sessions list --json` of the database the
# line names with --db (or the default one).  Only the characters of an id
# are kept: whatever else the database holds never reaches the shell.
_plandeck_agent_session_ids()
{
    local agent=$1 db=$2
    local -a args=(sessions list --json --limit 200)
    [[ -n $db ]] && args+=(--db "$db")
    "$agent" "${args[@]}" 2>/dev/null |
        grep -o '"id":"[A-Za-z0-9._:-]*"' | cut -d'"' -f4
}

_plandeck_agent()
{
    local cur prev words cword split
    _init_completion -s || return

    local commands="run continue serve plan config sessions events import"
    local engine="--provider --base-url --model --replay --planning --no-planning
        --approve --max-iterations --max-tokens --max-seconds -C --cwd --allow-outside"
    local help="-h --help"

    # The command, its own subcommand (plan, sessions), how many positional
    # words came before the one being completed, and the database named.
    local agent=${words[0]} command="" sub="" db="" i word
    local -i positionals=0
    [[ $agent == "~/"* ]] && agent=$HOME/${agent#"~/"}
    for ((i = 1; i < cword; i++)); do
        word=${words[i]}
        case $word in
            --db=*) db=${word#--db=} ;;
            --db) db=${words[i + 1]} ;;
        esac
        case $word in
            --db | --events-jsonl | --provider | --base-url | --model | --replay | \
                --approve | --max-iterations | --max-tokens | --max-seconds | -C | --cwd | \
                --listen | --allow-host | --allow-origin | --rate-limit | --webui | --max-streams | \
                --max-streams-per-client | --max-steps | --max-render-chars | \
                --global | --project | -q | --query | --limit | --offset | --session | \
                --type | --claude-dir | --codex-dir | --opencode-dir | --qwen-dir | \
                --gemini-dir | --cline-dir | --kilo-dir)
                # -q takes a value only for sessions (elsewhere it is --quiet).
                if [[ $word != -q || $command == sessions ]]; then
                    ((i++))
                fi
                ;;
            -*) ;;
            *)
                if [[ -z $command ]]; then
                    command=$word
                elif [[ -z $sub && ($command == plan || $command == sessions) ]]; then
                    sub=$word
                else
                    positionals+=1
                fi
                ;;
        esac
    done
    [[ $db == "~/"* ]] && db=$HOME/${db#"~/"}

    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--help -h --version" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    # The value of the option before the cursor.
    case $prev in
        --db | --events-jsonl | --replay | --global | --project)
            _filedir
            return
            ;;
        -C | --cwd | --claude-dir | --codex-dir | --opencode-dir | --qwen-dir | --gemini-dir | \
            --cline-dir | --kilo-dir | --webui)
            _filedir -d
            return
            ;;
        --provider)
            COMPREPLY=($(compgen -W "openai anthropic replay" -- "$cur"))
            return
            ;;
        --approve)
            COMPREPLY=($(compgen -W "ask auto deny" -- "$cur"))
            return
            ;;
        --session)
            COMPREPLY=($(compgen -W "$(_plandeck_agent_session_ids "$agent" "$db")" -- "$cur"))
            return
            ;;
        --base-url | --model | --max-iterations | --max-tokens | --max-seconds | --listen | \
            --allow-host | --allow-origin | --rate-limit | --max-streams | --max-streams-per-client | \
            --max-steps | --max-render-chars | --query | \
            --limit | --offset | --type)
            return
            ;;
        -q)
            [[ $command == sessions ]] && return
            ;;
    esac
    $split && return

    local options=""
    case $command in
        run | continue)
            options="--db --events-jsonl -q --quiet -i --interactive --plan-mode $engine"
            ;;
        serve)
            options="--db --listen --allow-host --allow-origin --rate-limit --webui --max-streams --max-streams-per-client $engine"
            ;;
        plan)
            options="--db --max-steps --max-render-chars"
            ;;
        config)
            options="--json --planning --no-planning --max-steps --max-render-chars
                --global --project"
            ;;
        sessions)
            options="--db --json -q --query --full-text --limit --offset"
            ;;
        events)
            options="--db --session --type -f --follow"
            ;;
        import)
            options="--db --json --plans --claude-dir --codex-dir --opencode-dir --qwen-dir --gemini-dir --cline-dir --kilo-dir"
            ;;
        *)
            return
            ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options $help" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi

    # Positional arguments.
    case $command in
        continue)
            ((positionals == 0)) &&
                COMPREPLY=($(compgen -W "$(_plandeck_agent_session_ids "$agent" "$db")" -- "$cur"))
            ;;
        plan)
            if [[ -z $sub ]]; then
                COMPREPLY=($(compgen -W "apply parse status" -- "$cur"))
            elif [[ $sub == status ]] && ((positionals == 0)); then
                COMPREPLY=($(compgen -W "$(_plandeck_agent_session_ids "$agent" "$db")" -- "$cur"))
            fi
            ;;
        sessions)
            if [[ -z $sub ]]; then
                COMPREPLY=($(compgen -W "list removed show export rm restore" -- "$cur"))
            elif [[ $sub == @(show|export|rm|restore) ]] && ((positionals == 0)); then
                COMPREPLY=($(compgen -W "$(_plandeck_agent_session_ids "$agent" "$db")" -- "$cur"))
            fi
            ;;
        import)
            _filedir
            ;;
    esac
} &&
    complete -F _plandeck_agent plandeck-agent

# ex: filetype=sh
