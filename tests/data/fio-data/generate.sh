#!/usr/bin/env bash
# fio's bssplit and compressible data, one run of Debian's fio per point (ioengine=null:
# no device is touched; the numbers are synthetic, the format is real). Two setups that
# differ only in the data written: 1:1 (buffer_compress_percentage=0) and 2:1 (=50, with
# refill_buffers and 10 % duplicate blocks); in each a block-size split
# (bssplit=4k/50:8k/30:64k/20, read and write) and a fixed 8K random write, 1 to 4 jobs.
# norandommap: fio's random map skews a split on a small file (its large blocks find no
# room), the sizes then follow the shares. Run via `make fio-fixtures` (~25 s).
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures'" >&2; exit 1; }
rm -rf raw && mkdir -p raw/c1 raw/c2
common="--ioengine=null --size=64M --time_based --runtime=1 --norandommap --iodepth=1 \
  --group_reporting --output-format=json"
for setup in c1 c2; do
  case $setup in
    c1) data="--buffer_compress_percentage=0" ;;
    c2) data="--buffer_compress_percentage=50 --refill_buffers --dedupe_percentage=10" ;;
  esac
  for n in 1 2 4; do
    # shellcheck disable=SC2086
    fio $common $data --name=split --rw=randread --bssplit=4k/50:8k/30:64k/20 \
        --numjobs="$n" --output="raw/$setup/split-read-$n.json"
    # shellcheck disable=SC2086
    fio $common $data --name=split --rw=randwrite --bssplit=4k/50:8k/30:64k/20 \
        --numjobs="$n" --output="raw/$setup/split-write-$n.json"
    # shellcheck disable=SC2086
    fio $common $data --name=fixed --rw=randwrite --bs=8k \
        --numjobs="$n" --output="raw/$setup/fixed-write-$n.json"
  done
done
fio --version > FIO_VERSION
