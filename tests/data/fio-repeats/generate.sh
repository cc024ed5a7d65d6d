#!/usr/bin/env bash
# Real fio output for points measured more than once and for block sizes that are not
# whole KiB (ioengine=null: no device is touched, the numbers are synthetic, the format
# is real). Run via `make fio-fixtures` (~10 s).
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures'" >&2; exit 1; }
rm -rf runs logs blocks
mkdir -p runs logs/first logs/second blocks
job=(--name=rep --ioengine=null --size=64M --time_based --runtime=1 --rw=randread --bs=4k
     --iodepth=1 --numjobs=1)
# one point measured three times; run in the order c, a, b, so that the names' order is
# not the order in time (fio's timestamp says which is newest: b)
for name in c a b; do
  fio "${job[@]}" --output-format=json --output="runs/run-$name.json"
done
# one point measured twice, as interval logs (the JSON beside them gives the options)
for run in first second; do
  (cd "logs/$run" && fio "${job[@]}" --log_avg_msec=250 --write_iops_log=rep \
      --write_lat_log=rep --output-format=json --output=rep.json)
done
# 1 KiB and 1536 B: two block sizes a chart name must keep apart; two levels each
for bs in 1k 1536; do
  for n in 1 2; do
    fio --name=bs --ioengine=null --size=64M --time_based --runtime=1 --rw=randread \
        --bs="$bs" --iodepth=1 --numjobs="$n" --group_reporting \
        --output-format=json --output="blocks/bs$bs-$n.json"
  done
done
fio --version > FIO_VERSION
