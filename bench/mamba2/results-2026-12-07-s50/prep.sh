#!/usr/bin/env bash
# prep.sh CLI — (here, before the call) the ChunkScan pick at 8 x 2048 and 8 x 4096 as generated,
# and its hand edits: fold (fold_el.py), single (single.py), fold+single; into b/.
set -eu
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
cli=$1
rm -rf "$here/b"; mkdir -p "$here/b"
for S in 2048 4096; do
  set_=B=8,S=$S,H=64,P=64,N=128,L=256
  "$cli" schedule "$root/examples/mamba2_chunk_scan.json" --set $set_ --target sm90a --hw H100 -o "$here/b/program-$S.json" >/dev/null 2>&1
  "$cli" codegen "$root/examples/mamba2_chunk_scan.json" --set $set_ --program "$here/b/program-$S.json" --target sm90a -o "$here/b/pick-$S" >/dev/null
  cp -r "$here/b/pick-$S" "$here/b/fold-$S"; python3 "$here/fold_el.py" "$here/b/fold-$S"
  cp -r "$here/b/pick-$S" "$here/b/single-$S"; python3 "$here/single.py" "$here/b/single-$S"
  cp -r "$here/b/fold-$S" "$here/b/foldsingle-$S"; python3 "$here/single.py" "$here/b/foldsingle-$S"
done
