#!/usr/bin/env bash
# Regenerate the SNIA PTS steady-state samples with Debian's fio (ioengine=null, rate
# limited so the verdict does not depend on the machine). Run via `make fio-fixtures`.
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures'" >&2; exit 1; }
rm -f ./*.log ./*.json
# steady: 3000 IOPS for 4 s in windows of 500 ms (seven full rounds plus fio's remainder)
fio --ioengine=null --size=64M --time_based --runtime=4 --name=pts --rw=randread --bs=4k \
    --rate_iops=3000 --log_avg_msec=500 --per_job_logs=1 --write_iops_log=pts \
    --write_lat_log=pts --output-format=json --output=pts.json
rm -f pts_slat.1.log pts_clat.1.log
# not steady: a second job joins after 3 s (step.fio, no group_reporting: two records,
# and the run counts as parallelism 2 throughout), status snapshots every second
fio --output-format=json --status-interval=1 --output=step.json step.fio
fio --version > FIO_VERSION
