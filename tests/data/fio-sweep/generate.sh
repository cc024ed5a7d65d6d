#!/usr/bin/env bash
# A real fio sweep, as bench-fio lays it out for fio-plot: 5 block sizes x 3 mixes x
# 5 numjobs levels, one run of Debian's fio per point (ioengine=null: no device is
# touched, the numbers are synthetic, the format is real). `make bench` builds it with
# iopress beside fio-plot drawing the same 15 charts. Run via `make fio-fixtures` (~90 s).
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures'" >&2; exit 1; }
rm -rf ./*_r*/
for bs in 4k 8k 64k 256k 1m; do
  for mix in 100 70 0; do
    case $bs in 256k|1m) names=(read rw write) ;; *) names=(randread randrw randwrite) ;; esac
    case $mix in 100) rw=${names[0]} ;; 70) rw=${names[1]} ;; *) rw=${names[2]} ;; esac
    mkdir -p "${bs}_r${mix}"
    for n in 1 2 4 8 16; do
      fio --name=sweep --ioengine=null --size=64M --time_based --runtime=1 --rw="$rw" \
          --rwmixread="$mix" --bs="$bs" --iodepth=1 --numjobs="$n" --group_reporting \
          --output-format=json --output="${bs}_r${mix}/${rw}-1-${n}.json"
    done
  done
done
fio --version > FIO_VERSION
