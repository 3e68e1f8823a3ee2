#!/usr/bin/env bash
# shared-skips.sh LOG...: says how many tests the test logs show skipped because ../shared (the
# shared PDF corpus, toml-test) is missing beside the package, as a clone on its own has it. Each
# such test skips with one line that names what is missing ("../shared/pdf-corpus is missing ...");
# the tests made here (ProducedCorpus, Tests/Fixtures/toml) cover the same ground either way.
set -euo pipefail
lines=$(cat "$@" | grep -E 'skipped.*\.\./shared/[^ ]+ is missing' || true)
if [ -z "$lines" ]; then
    echo "make test: no test skipped for want of ../shared"
    exit 0
fi
count=$(printf '%s\n' "$lines" | wc -l)
missing=$(printf '%s\n' "$lines" | grep -oE '\.\./shared/[^ ]+ is missing' | sort -u | sed 's/ is missing//' | paste -sd, - | sed 's/,/, /g')
echo "make test: $count tests skipped because ../shared is missing ($missing); they run where it is there"
