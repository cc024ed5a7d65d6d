#!/usr/bin/env bash
# The chart kinds beyond parallelism, one run of Debian's fio per point (ioengine=null: no
# device is touched; the numbers are synthetic, the format is real), 200 ms each:
#   qd/  a QD x threads grid: iodepth 1, 4, 16 x numjobs 1, 2, 4, 4K random read and write
#   bs/  a block-size series (IOMeter-like, seed 002): 512 B ... 1 MiB x 100 % read, 50/50
#        and 100 % write, at iodepth 1 and one job
#   fb/  a frontend/backend pair (seed 003): 8K random read and write, 1, 2, 4 jobs, on a
#        10 MiB target (frontend: the cache) and a 1 GiB one (backend)
# Each folder's report.toml builds it (tests/test_chart_kinds.py). Run via
# `make fio-fixtures` (~40 s).
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures'" >&2; exit 1; }
rm -rf qd/raw bs/raw fb/raw && mkdir -p qd/raw bs/raw fb/raw/frontend fb/raw/backend
common="--ioengine=null --time_based --runtime=200ms --group_reporting --output-format=json"
for rw in randread randwrite; do
  for qd in 1 4 16; do
    for n in 1 2 4; do
      # shellcheck disable=SC2086
      fio $common --name=grid --size=64M --rw=$rw --bs=4k --iodepth=$qd --numjobs=$n \
          --output="qd/raw/$rw-qd$qd-n$n.json"
    done
  done
done
for bs in 512 1k 2k 4k 8k 16k 32k 64k 128k 256k 512k 1m; do
  for mix in 100 50 0; do
    case $mix in 100) rw=randread ;; 50) rw=randrw ;; *) rw=randwrite ;; esac
    # shellcheck disable=SC2086
    fio $common --name=series --size=64M --rw=$rw --rwmixread=$mix --bs=$bs --iodepth=1 \
        --numjobs=1 --output="bs/raw/$bs-r$mix.json"
  done
done
for side in frontend backend; do
  case $side in frontend) size=10M ;; *) size=1G ;; esac
  for rw in randread randwrite; do
    for n in 1 2 4; do
      # shellcheck disable=SC2086
      fio $common --name=$side --size=$size --rw=$rw --bs=8k --iodepth=1 --numjobs=$n \
          --output="fb/raw/$side/$rw-$n.json"
    done
  done
done
fio --version > FIO_VERSION
