#!/usr/bin/env bash
# Regenerate the fio interval-log samples with Debian's fio (ioengine=null). Run via
# `make fio-fixtures`; then `python -m tests.regenerate_expected` and review the diff.
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures'" >&2; exit 1; }
rm -f ./*.log ./*.json
# windowed logs (log_avg_msec), two clones of one job, parameters in win.json
fio --ioengine=null --size=64M --time_based --runtime=1 --name=win --rw=randrw \
    --rwmixread=70 --bs=4k --numjobs=2 --iodepth=2 --group_reporting --log_avg_msec=200 \
    --per_job_logs=1 --write_iops_log=win --write_bw_log=win --write_lat_log=win \
    --output-format=json --output=win.json
# per-I/O latency log (no log_avg_msec), rate-limited to keep it small
fio --ioengine=null --size=64M --time_based --runtime=2 --name=perio --rw=randwrite \
    --bs=8k --rate_iops=50 --per_job_logs=1 --write_lat_log=perio \
    --output-format=json --output=perio.json
fio --version > FIO_VERSION
# a log whose job no JSON or job file describes, and a corrupt log
mkdir -p bad/orphan bad/corrupt
head -3 win_iops.1.log > bad/orphan/lost_iops.1.log
{ head -2 win_iops.1.log; echo "400, twelve, 0, 0, 0"; } > bad/corrupt/win_iops.1.log
cp win.json bad/corrupt/win.json
