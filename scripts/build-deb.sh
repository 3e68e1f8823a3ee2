#!/usr/bin/env bash
# Builds the Debian package from the tree (dpkg-buildpackage -us -uc -b) and checks it with lintian,
# failing on any error. The package and its build files land in .build/deb/ (dpkg-buildpackage puts
# them beside the tree; they are moved, so nothing is left outside it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/.build/deb
cd "$root"
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
dpkg-buildpackage -us -uc -b
mkdir -p "$out"
for file in ../pdftrapper_"$version"_"$arch".{deb,buildinfo,changes} ../pdftrapper-dbgsym_"$version"_"$arch".deb; do
    [ -e "$file" ] && mv -f "$file" "$out/"
done
echo "build-deb: $out/pdftrapper_${version}_${arch}.deb"
# Errors fail the build; warnings are printed for whoever reads the log.
lintian --fail-on error --no-tag-display-limit "$out/pdftrapper_${version}_${arch}.changes"
echo "build-deb: lintian found no errors"
