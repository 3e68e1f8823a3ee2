#!/usr/bin/env bash
# Installs the package built by scripts/build-deb.sh on this machine and checks it as a user would:
# the binary runs, `man` finds its pages, the completion checks itself, systemd accepts the units,
# the user and folders exist; then removes and purges it and checks that none of its files is left.
# Needs root (CI and the dev machines are root). Refuses to run where pdftrapper is installed already.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=$(dpkg-parsechangelog -S Version)
deb=$root/.build/deb/pdftrapper_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
[ -e "$deb" ] || { echo "test-deb: no $deb; run scripts/build-deb.sh first" >&2; exit 1; }
if dpkg-query -W -f='${Status}' pdftrapper 2>/dev/null | grep -q "ok installed"; then
    echo "test-deb: pdftrapper is installed on this machine already; not touching it" >&2
    exit 1
fi
fail() { echo "test-deb: FAILED: $*" >&2; exit 1; }

# dpkg -i does not fetch Depends: what the package needs must be there, as apt would make it.
missing=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/[(|].*//; s/ //g' | grep -v '^$' |
    while read -r package; do dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || echo "$package"; done)
[ -z "$missing" ] || fail "its Depends are not installed: $missing"

# The folders the package may make, and which of them were here before it.
made_by_package=()
for path in /etc/pdftrapper /var/lib/pdftrapper /srv/scans /srv/documents; do
    [ -e "$path" ] || made_by_package+=("$path")
done

dpkg -i "$deb"
files=$(dpkg -L pdftrapper | while read -r path; do [ -f "$path" ] && echo "$path"; done)

pdftrapper --version | grep -q "^pdftrapper $version" || fail "pdftrapper --version: $(pdftrapper --version)"
# The libraries opened on first use (no NEEDED entry, so only the package's own Depends bring them).
! pdftrapper --version | grep -q unavailable || fail "a library pdftrapper opens is missing: $(pdftrapper --version)"
[ "$(command -v pdftrapper)" = /usr/bin/pdftrapper ] || fail "pdftrapper is not /usr/bin/pdftrapper"
for page in pdftrapper pdftrapper.toml pdftrapper-edit; do
    man -w "$page" >/dev/null || fail "man -w $page"
done
man -w 5 pdftrapper.toml | grep -q man5 || fail "pdftrapper.toml(5) is not in section 5"
bash /usr/share/bash-completion/completions/pdftrapper --self-check | grep -qx ok || fail "the bash completion's self-check"
zsh -n /usr/share/zsh/vendor-completions/_pdftrapper || fail "zsh -n on the zsh completion"
systemd-analyze verify /lib/systemd/system/pdftrapper.service || fail "systemd-analyze verify on the system unit"
# The user manager wants a runtime directory of its own.
runtime=$(mktemp -d)
XDG_RUNTIME_DIR=$runtime systemd-analyze verify --user /usr/lib/systemd/user/pdftrapper.service ||
    fail "systemd-analyze verify on the user unit"
rm -rf "$runtime"
[ ! -e /etc/systemd/user/default.target.wants/pdftrapper.service ] || fail "the user unit was enabled for every user"
getent passwd pdftrapper >/dev/null || fail "no user pdftrapper"
id -nG pdftrapper | grep -qw scanner || fail "pdftrapper is not in group scanner"
[ "$(stat -c %U /srv/scans/inbox)" = pdftrapper ] || fail "/srv/scans/inbox is not pdftrapper's"
pdftrapper check-config /etc/pdftrapper/config.toml || fail "the installed config is not valid"
dpkg-query -W -f='${Conffiles}' pdftrapper | grep -q /etc/pdftrapper/config.toml || fail "the config is not a conffile"

dpkg -r pdftrapper
[ ! -e /usr/bin/pdftrapper ] || fail "/usr/bin/pdftrapper is left after dpkg -r"
[ -e /etc/pdftrapper/config.toml ] || fail "dpkg -r took the config (only a purge may)"
dpkg -P pdftrapper
for path in $files; do
    [ ! -e "$path" ] || fail "$path is left after the purge"
done
for path in "${made_by_package[@]}"; do
    [ ! -e "$path" ] || fail "$path is left after the purge"
done
echo "test-deb: installed, checked, removed and purged; $(echo "$files" | wc -l) files, none left"
