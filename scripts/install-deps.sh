#!/usr/bin/env bash
# Installs what building and testing PDFTrapper needs on Debian 12, only what is missing, so a
# second run costs a second. Run as root (CI and the dev machines are root; elsewhere, sudo).
set -euo pipefail

# Headers and libraries behind the systemLibrary shims. libcurl4-openssl-dev conflicts with the
# other flavours' -dev packages: apt-get -y below removes libcurl4-nss-dev or libcurl4-gnutls-dev.
build_packages=(pkg-config libsane-dev libinotifytools0-dev libpoppler-glib-dev libqpdf-dev
  libleptonica-dev libtesseract-dev libzbar-dev libsystemd-dev zlib1g-dev libssl-dev libmicrohttpd-dev
  libcurl4-openssl-dev libheif-dev libwebp-dev)
# OpenCV's core and imgproc, behind find_page's own library (Sources/SheetVision).
build_packages+=(libopencv-dev)
# SQLite with FTS5, the library's search index (Sources/Search).
build_packages+=(libsqlite3-dev)
# The real parts the tests drive: independent PDF readers, SANE's test scanner, OCR data, systemd tools,
# and zint, which prints the barcodes of the separator tests.
tool_packages=(qpdf poppler-utils mupdf-tools ghostscript sane-utils libsane1 tesseract-ocr
  tesseract-ocr-eng systemd openssl zint)
# strace records every file-system call a run makes, for the power-loss explorer (Tests/PowerLoss).
tool_packages+=(strace)
# The sqlite3 shell checks the search index from outside (Tests/EndToEndTests/SearchEndToEndTests.swift).
tool_packages+=(sqlite3)
# GNU time gives a command's peak memory (a large JPEG's ingest, Tests/Workspace/test_upload.py) and
# the benchmarks' figures.
tool_packages+=(time)
# gdb prints the stacks of a test run that hangs (scripts/with-stacks.sh).
tool_packages+=(gdb)
# The man pages (scdoc; man-db and bsdextrautils' col render them as a reader sees them), the
# completions' checks (zsh, bash-completion) and the Debian package's build, check and install test
# (debhelper, lintian).
tool_packages+=(scdoc zsh bash-completion man-db bsdextrautils dpkg-dev debhelper fakeroot lintian)
# The workspace's tests: Debian's Chromium and its WebDriver (driven through selenium from PyPI),
# and Node for the tests of its pure parts (web/tests/).
tool_packages+=(chromium chromium-driver nodejs)
# The phone photos' own encoders and decoders, which make and judge the HEIC, AVIF and WebP test
# photos: libheif's (heif-enc, heif-convert; heif-make is built on libheif-dev), libavif's avifenc
# (10-bit AVIF), libwebp's cwebp, webpmux and dwebp.
tool_packages+=(libheif-examples libavif-bin webp)
# GlusterFS, server and FUSE client: the multi-host tests (Tests/MultiHost) make a volume on a loopback
# address and mount it once per "host", and bench/multihost.py times appends through the mount.
tool_packages+=(glusterfs-server glusterfs-client)
# ImageMagick warps the rendered pages of the find_page tests into phone photos (-distort
# Perspective), and is the warp bench/photo.py times ours against.
tool_packages+=(imagemagick)
# From PyPI: independent readers run against every PDF the project writes (pypdf, pypdfium2), the
# test images' maker (Pillow), a signer and validator for signed targets (pyHanko), and the
# WebDriver client the workspace's browser tests drive Chromium with (selenium).
pip_packages=(pypdf pypdfium2 pillow pyhanko pyhanko-certvalidator selenium)
# Two more producers of the test PDFs made at test time (Tests/Fixtures/produced-pdfs/make.py):
# img2pdf (pictures kept as they are) and reportlab (forms, inline images).
pip_packages+=(img2pdf reportlab)

# The peers the benchmarks run against (img2pdf from PyPI, and qpdf, pdfunite and GNU time, are
# above); only with --bench.
if [ "${1:-}" = --bench ]; then
  tool_packages+=(inotify-tools)
  # bench/sheets.py runs the tutorial detector and the finder's prototype through OpenCV for Python
  # (4.x: the prototype's line segment detector; the product's OpenCV is Debian's 4.6).
  pip_packages+=(ocrmypdf "opencv-python-headless<5")
fi

missing=()
for package in "${build_packages[@]}" "${tool_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python_check='import pypdf, pypdfium2, PIL, pyhanko, pyhanko_certvalidator, selenium, img2pdf, reportlab'
if [ "${1:-}" = --bench ]; then python_check+=', ocrmypdf'; fi
if ! python3 -c "$python_check" 2>/dev/null; then
  echo "install-deps: installing ${pip_packages[*]} from PyPI"
  python3 -m pip install --quiet --disable-pip-version-check "${pip_packages[@]}"
fi
