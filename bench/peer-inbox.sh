#!/usr/bin/env bash
# The peer for bench/daemon.py: a shell loop around inotifywait, img2pdf and qpdf doing the daemon's
# job (take each file renamed into INBOX, append its page to TARGET, move it to ARCHIVE), as people
# script it without PDFTrapper. Usage: peer-inbox.sh INBOX TARGET ARCHIVE
set -u
inbox=$1 target=$2 archive=$3
inotifywait -m -q -e moved_to --format '%f' "$inbox" | while read -r name; do
  page=$(mktemp --suffix=.pdf)
  img2pdf "$inbox/$name" -o "$page"
  if [ -f "$target" ]; then
    qpdf --empty --pages "$target" "$page" -- "$target.new" && mv "$target.new" "$target"
  else
    mv "$page" "$target"
  fi
  sync "$target"
  rm -f "$page"
  mv "$inbox/$name" "$archive/$name"
done
