# bash completion for pdftrapper(1).
#
# Install as /usr/share/bash-completion/completions/pdftrapper (or source it from ~/.bashrc).
# It completes the commands, each command's options (as Sources/pdftrapper/*Command.swift declares
# them), file names where an argument is a file, the profile names of `scan --profile` and the
# button names of `explain --button`, both read from the config: the one named with --config on
# the line, else the first that exists of $PDFTRAPPER_CONFIG, $XDG_CONFIG_HOME/pdftrapper/config.toml
# (or ~/.config/pdftrapper/config.toml) and /etc/pdftrapper/config.toml, as pdftrapper searches.
#
# Check it: bash completion/pdftrapper.bash --self-check   (prints "ok")

_pdftrapper_commands="run status ingest scan devices apply annotations history preview undo redo compact recover events search index check-config explain ocr serve web-url help"

# Flags (no value) and options (with a value) of each command; every command also takes --help.
_pdftrapper_flags() {
    case $1 in
        ingest) echo "--prepend" ;;
        annotations) echo "--json" ;;
        compact) echo "--linearize" ;;
        ocr) echo "--queued" ;;
        web-url) echo "--new-token" ;;
        search) echo "--json" ;;
        index) echo "--rebuild" ;;
    esac
}

_pdftrapper_options() {
    case $1 in
        run | check-config | serve | web-url | index) echo "--config" ;;
        search) echo "--config --in --after --before --limit" ;;
        status) echo "--config --json" ;;
        events) echo "--config --retry --json" ;;
        ingest) echo "--to --config --rule --state-dir" ;;
        scan) echo "--profile --to --stall --config --state-dir" ;;
        apply | redo | compact | recover) echo "--config --state-dir" ;;
        annotations) echo "--page" ;;
        history) echo "--thumbnails" ;;
        preview) echo "--page --revision --dpi --out" ;;
        undo) echo "--steps --config --state-dir" ;;
        explain) echo "--config --source --button --profile" ;;
        ocr) echo "--lang --config --state-dir" ;;
    esac
}

# What a command's plain arguments are: pdf, script, toml, input (any file) or nothing.
_pdftrapper_positional() {
    case $1 in
        annotations | history | preview | undo | redo | compact | ocr) echo pdf ;;
        apply) echo script ;;
        check-config) echo toml ;;
        ingest | explain) echo input ;;
    esac
}

# The config file: --config on the line, else pdftrapper's own search (ConfigLocation.swift).
_pdftrapper_config_file() {
    local i word file=
    for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
        word=${COMP_WORDS[i]}
        if [[ $word == --config ]]; then
            if [[ ${COMP_WORDS[i + 1]-} == "=" ]]; then
                file=${COMP_WORDS[i + 2]-}
            else
                file=${COMP_WORDS[i + 1]-}
            fi
        elif [[ $word == --config=* ]]; then
            file=${word#--config=}
        fi
    done
    if [[ -n $file ]]; then
        [[ $file == "~/"* ]] && file=$HOME/${file#"~/"}
        printf '%s\n' "$file"
        return
    fi
    if [[ -n ${PDFTRAPPER_CONFIG-} ]]; then
        printf '%s\n' "$PDFTRAPPER_CONFIG"
        return
    fi
    local candidates=()
    if [[ ${XDG_CONFIG_HOME-} == /* ]]; then
        candidates+=("$XDG_CONFIG_HOME/pdftrapper/config.toml")
    elif [[ -n ${HOME-} ]]; then
        candidates+=("$HOME/.config/pdftrapper/config.toml")
    fi
    candidates+=(/etc/pdftrapper/config.toml)
    for file in "${candidates[@]}"; do
        if [[ -r $file ]]; then
            printf '%s\n' "$file"
            return
        fi
    done
}

# Profile names: the NAME of every [profile.NAME] header (and of [profile.NAME.options]).
_pdftrapper_profiles() {
    local file
    file=$(_pdftrapper_config_file)
    [[ -r $file ]] || return
    awk '
        /^[ \t]*\[[ \t]*profile[ \t]*\.[^]]*\][ \t]*(#.*)?$/ {
            line = $0
            sub(/^[ \t]*\[[ \t]*profile[ \t]*\.[ \t]*/, "", line)
            if (substr(line, 1, 1) == "\"") {
                line = substr(line, 2); sub(/".*/, "", line)
            } else if (substr(line, 1, 1) == "\047") {
                line = substr(line, 2); sub(/\047.*/, "", line)
            } else {
                sub(/[ \t]*[].].*/, "", line)
            }
            if (line != "" && !(line in seen)) { seen[line] = 1; print line }
        }
    ' "$file"
}

# Button names: the keys of every [scanner.buttons] table (or buttons = { ... } in a [[scanner]]).
# Rule names: the name of every [[rule]] table.
_pdftrapper_rules() {
    local file
    file=$(_pdftrapper_config_file)
    [[ -r $file ]] || return
    awk '
        /^[ \t]*\[/ { inRule = ($0 ~ /^[ \t]*\[\[[ \t]*rule[ \t]*\]\]/); next }
        inRule && /^[ \t]*name[ \t]*=/ {
          value = $0; sub(/^[^=]*=[ \t]*/, "", value)
          quote = substr(value, 1, 1)
          if (quote == "\"" || quote == "\047") { value = substr(value, 2); sub(quote ".*", "", value) }
          if (value != "" && !(value in seen)) { seen[value] = 1; print value }
        }
    ' "$file"
}

_pdftrapper_buttons() {
    local file
    file=$(_pdftrapper_config_file)
    [[ -r $file ]] || return
    awk '
        function emit(key) {
            gsub(/^[ \t"\047]+|[ \t"\047]+$/, "", key)
            if (key != "" && !(key in seen)) { seen[key] = 1; print key }
        }
        /^[ \t]*\[/ {
            inButtons = ($0 ~ /^[ \t]*\[[ \t]*scanner[ \t]*\.[ \t]*buttons[ \t]*\]/)
            inScanner = ($0 ~ /^[ \t]*\[\[[ \t]*scanner[ \t]*\]\]/)
            next
        }
        inButtons && /=/ && !/^[ \t]*#/ { key = $0; sub(/=.*/, "", key); emit(key); next }
        inScanner && /^[ \t]*buttons[ \t]*=[ \t]*\{/ {
            body = $0; sub(/^[^{]*\{/, "", body); sub(/\}.*/, "", body)
            n = split(body, pairs, ",")
            for (i = 1; i <= n; i++) { key = pairs[i]; sub(/=.*/, "", key); emit(key) }
        }
    ' "$file"
}

# Tesseract's languages, for --lang (L or L1+L2...).
_pdftrapper_languages() {
    command -v tesseract >/dev/null 2>&1 || return
    tesseract --list-langs 2>/dev/null | awk 'NR > 1 && $0 != "osd"'
}

# File names: $1 is a glob of extensions ("pdf", "toml|json"), or empty for any file.
_pdftrapper_files() {
    local cur=$1 extensions=$2
    compopt -o filenames 2>/dev/null
    if [[ -z $extensions ]]; then
        COMPREPLY+=($(compgen -f -- "$cur"))
        return
    fi
    local restore
    restore=$(shopt -p extglob)
    shopt -s extglob
    COMPREPLY+=($(compgen -d -- "$cur"))
    COMPREPLY+=($(compgen -f -X "!*.@($extensions|${extensions^^})" -- "$cur"))
    eval "$restore"
}

_pdftrapper() {
    local IFS=$'\n'
    COMPREPLY=()
    local cword=$COMP_CWORD
    local cur=${COMP_WORDS[cword]-}
    local prev=${COMP_WORDS[cword - 1]-}
    # `--option=VALUE`: bash splits at '=' (COMP_WORDBREAKS).
    if [[ $cur == "=" ]]; then
        cur=
    elif [[ $prev == "=" && $cword -ge 2 ]]; then
        prev=${COMP_WORDS[cword - 2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        cur=${cur#*=}
    fi

    if ((cword == 1)); then
        COMPREPLY=($(IFS=' '; compgen -W "$_pdftrapper_commands --help --version" -- "$cur"))
        return
    fi

    local command=${COMP_WORDS[1]}
    if [[ $command == help ]]; then
        ((cword == 2)) && COMPREPLY=($(IFS=' '; compgen -W "${_pdftrapper_commands% help}" -- "$cur"))
        return
    fi
    [[ " $_pdftrapper_commands " == *" $command "* ]] || return

    # The value of an option.
    case $prev in
        --config) _pdftrapper_files "$cur" "toml"; return ;;
        --state-dir | --thumbnails) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --out) _pdftrapper_files "$cur" "png"; return ;;
        --to) _pdftrapper_files "$cur" "pdf"; return ;;
        --profile) COMPREPLY=($(compgen -W "$(_pdftrapper_profiles)" -- "$cur")); return ;;
        --button) COMPREPLY=($(compgen -W "$(_pdftrapper_buttons)" -- "$cur")); return ;;
        --rule) COMPREPLY=($(compgen -W "$(_pdftrapper_rules)" -- "$cur")); return ;;
        --source) COMPREPLY=($(IFS=' '; compgen -W "inbox scanner" -- "$cur")); return ;;
        --lang)
            local typed=
            [[ $cur == *+* ]] && typed=${cur%+*}+
            COMPREPLY=($(compgen -P "$typed" -W "$(_pdftrapper_languages)" -- "${cur##*+}"))
            return
            ;;
        --page | --steps | --revision | --dpi) return ;;
    esac

    # After `--`, only files.
    local i ended=
    for ((i = 2; i < cword; i++)); do [[ ${COMP_WORDS[i]} == -- ]] && ended=1; done

    local positional
    positional=$(_pdftrapper_positional "$command")
    # `check-config --config FILE` and `ocr --queued` take no file besides.
    local line=" ${COMP_WORDS[*]:2:cword-2} "
    line=${line//$'\n'/ }
    [[ $command == check-config && $line == *" --config"[\ =]* ]] && positional=
    [[ $command == ocr && $line == *" --queued "* ]] && positional=
    if [[ -z $ended && ($cur == -* || -z $positional) ]]; then
        # Options not given yet (each may be given once), and --help.
        local word candidates=()
        for word in $(IFS=' '; printf '%s\n' $(_pdftrapper_flags "$command") $(_pdftrapper_options "$command") --help); do
            [[ $line == *" $word "* || $line == *" $word="* ]] || candidates+=("$word")
        done
        COMPREPLY=($(compgen -W "${candidates[*]}" -- "$cur"))
        return
    fi
    case $positional in
        pdf) _pdftrapper_files "$cur" "pdf" ;;
        script) _pdftrapper_files "$cur" "toml|json" ;;
        toml) _pdftrapper_files "$cur" "toml" ;;
        input) _pdftrapper_files "$cur" "" ;;
    esac
}

complete -F _pdftrapper pdftrapper

# `bash pdftrapper.bash --self-check`: complete a few lines as bash would, and check the answers.
if [[ ${BASH_SOURCE[0]} == "$0" && ${1-} == --self-check ]]; then
    _pdftrapper_try() {
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="${COMP_WORDS[*]}"
        COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        _pdftrapper pdftrapper "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf ' %s ' "${COMPREPLY[@]}"
    }
    _pdftrapper_expect() {
        local what=$1 offered=$2 word
        shift 2
        for word in "$@"; do
            if [[ $offered != *" $word "* ]]; then
                echo "pdftrapper.bash: completing '$what' does not offer '$word' (offers:$offered)" >&2
                failed=1
            fi
        done
    }
    _pdftrapper_refuse() {
        local what=$1 offered=$2 word
        shift 2
        for word in "$@"; do
            if [[ $offered == *" $word "* ]]; then
                echo "pdftrapper.bash: completing '$what' offers '$word', which it should not" >&2
                failed=1
            fi
        done
    }
    failed=
    # Every command of `pdftrapper --help` (CLI.swift), written out again here on purpose.
    _pdftrapper_expect "pdftrapper " "$(_pdftrapper_try pdftrapper "")" \
        run status ingest scan devices apply annotations history preview undo redo compact recover events \
        search index check-config explain ocr serve web-url help --help --version
    _pdftrapper_refuse "pdftrapper " "$(_pdftrapper_try pdftrapper "")" scanner-agent
    if [[ -n ${PDFTRAPPER_BIN-} && -x $PDFTRAPPER_BIN ]]; then
        # shellcheck disable=SC2046
        _pdftrapper_expect "pdftrapper " "$(_pdftrapper_try pdftrapper "")" \
            $("$PDFTRAPPER_BIN" --help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
    fi
    _pdftrapper_expect "pdftrapper ch" "$(_pdftrapper_try pdftrapper ch)" check-config
    _pdftrapper_expect "pdftrapper help " "$(_pdftrapper_try pdftrapper help "")" ingest ocr explain
    _pdftrapper_refuse "pdftrapper help " "$(_pdftrapper_try pdftrapper help "")" help
    _pdftrapper_expect "pdftrapper ingest -" "$(_pdftrapper_try pdftrapper ingest -)" --to --prepend --config --rule --state-dir --help
    _pdftrapper_expect "pdftrapper search x -" "$(_pdftrapper_try pdftrapper search x -)" --json --in --after --before --limit --config
    _pdftrapper_expect "pdftrapper index -" "$(_pdftrapper_try pdftrapper index -)" --rebuild --config
    _pdftrapper_expect "pdftrapper scan -" "$(_pdftrapper_try pdftrapper scan -)" --profile --to --config --state-dir
    _pdftrapper_expect "pdftrapper ocr -" "$(_pdftrapper_try pdftrapper ocr -)" --lang --queued --config --state-dir
    _pdftrapper_expect "pdftrapper annotations -" "$(_pdftrapper_try pdftrapper annotations -)" --page --json
    _pdftrapper_expect "pdftrapper preview -" "$(_pdftrapper_try pdftrapper preview -)" --page --revision --dpi --out
    _pdftrapper_expect "pdftrapper history x.pdf -" "$(_pdftrapper_try pdftrapper history x.pdf -)" --thumbnails
    _pdftrapper_expect "pdftrapper undo x.pdf -" "$(_pdftrapper_try pdftrapper undo x.pdf -)" --steps --config --state-dir
    _pdftrapper_expect "pdftrapper compact -" "$(_pdftrapper_try pdftrapper compact -)" --linearize
    _pdftrapper_expect "pdftrapper explain -" "$(_pdftrapper_try pdftrapper explain -)" --config --source --button
    _pdftrapper_expect "pdftrapper explain --source " "$(_pdftrapper_try pdftrapper explain --source "")" inbox scanner
    _pdftrapper_refuse "pdftrapper ingest --prepend -" "$(_pdftrapper_try pdftrapper ingest --prepend -)" --prepend
    _pdftrapper_refuse "pdftrapper devices -" "$(_pdftrapper_try pdftrapper devices -)" --config

    # Profiles and buttons from a config named on the line, files by extension.
    scratch=$(mktemp -d) || exit 1
    trap 'rm -rf "$scratch"' EXIT
    cat >"$scratch/config.toml" <<'EOF'
[library]
root = "lib"
[inbox]
path = "inbox"
[[rule]]
name = "everything"
target = "Inbox.pdf"
[[rule]]
name = 'receipts'
target = "Receipts.pdf"
[[scanner]]
device = "fujitsu:*"
[scanner.buttons]
scan = "adf-color"
email = "adf-gray"
[profile.adf-color]
source = "adf-duplex"
[profile.adf-color.options]
brightness = 10
[profile."adf-gray"]
mode = "gray"
EOF
    touch "$scratch/a.pdf" "$scratch/b.toml" "$scratch/c.json" "$scratch/d.jpg"
    offered=$(_pdftrapper_try pdftrapper scan --config "$scratch/config.toml" --profile "")
    _pdftrapper_expect "scan --profile" "$offered" adf-color adf-gray
    _pdftrapper_refuse "scan --profile" "$offered" options adf-color.options
    offered=$(_pdftrapper_try pdftrapper scan --config = "$scratch/config.toml" --profile "")
    _pdftrapper_expect "scan --config=FILE --profile" "$offered" adf-color adf-gray
    offered=$(PDFTRAPPER_CONFIG=$scratch/config.toml _pdftrapper_try pdftrapper scan --profile "")
    _pdftrapper_expect "scan --profile (\$PDFTRAPPER_CONFIG)" "$offered" adf-color adf-gray
    offered=$(_pdftrapper_try pdftrapper ingest --config "$scratch/config.toml" --rule "")
    _pdftrapper_expect "ingest --rule" "$offered" everything receipts
    _pdftrapper_refuse "ingest --rule" "$offered" adf-color
    offered=$(_pdftrapper_try pdftrapper explain --config "$scratch/config.toml" --button "")
    _pdftrapper_expect "explain --button" "$offered" scan email
    offered=$(_pdftrapper_try pdftrapper history "$scratch/")
    _pdftrapper_expect "history FILE" "$offered" "$scratch/a.pdf"
    _pdftrapper_refuse "history FILE" "$offered" "$scratch/b.toml" "$scratch/d.jpg"
    offered=$(_pdftrapper_try pdftrapper apply "$scratch/")
    _pdftrapper_expect "apply SCRIPT" "$offered" "$scratch/b.toml" "$scratch/c.json"
    _pdftrapper_refuse "apply SCRIPT" "$offered" "$scratch/a.pdf"
    offered=$(_pdftrapper_try pdftrapper ingest --to x.pdf "$scratch/")
    _pdftrapper_expect "ingest INPUT" "$offered" "$scratch/a.pdf" "$scratch/d.jpg"

    if [[ -n $failed ]]; then
        exit 1
    fi
    echo ok
    exit 0
fi
