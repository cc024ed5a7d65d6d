#!/usr/bin/env bash
# Regenerate the fio samples in this folder with Debian's fio (ioengine=null: no device is
# touched; the numbers are synthetic, the format is real). Run: make fio-fixtures
# Afterwards run `python -m tests.regenerate_expected` and review `git diff tests/data`.
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures' (installs Debian's fio)" >&2; exit 1; }
common="--ioengine=null --size=64M --time_based --runtime=1"

fio $common --name=mix --rw=randrw --rwmixread=70 --bs=8k --numjobs=2 --iodepth=4 \
    --group_reporting --output-format=json --output=randrw_group.json
fio $common --name=seq --rw=read --bs=64k --numjobs=3 --iodepth=2 \
    --output-format=json --output=per_job.json
fio $common --name=hist --rw=randread --bs=4k --output-format=json+ --output=jsonplus.json
fio $common --name=pair --rw=randrw --bs=4k,64k --output-format=json --output=bs_pair.json
fio --ioengine=null --size=64M --time_based --runtime=2 --status-interval=1 --name=live \
    --rw=randwrite --bs=16k --output-format=json --output=status_interval.json
# ramp_time with --status-interval: fio starts the counters again when the ramp ends. With
# a 1 s ramp the first snapshot (in the ramp: I/O, no latency sample) is followed by one
# with more run time; with a 2 s ramp the run time goes down. startdelay restarts them too.
ramp="--ioengine=null --size=64M --time_based --runtime=3 --status-interval=1 --rate_iops=5000"
fio $ramp --ramp_time=1 --name=ramp --rw=randread --bs=4k \
    --output-format=json --output=ramp_status.json
fio $ramp --ramp_time=2 --name=ramp2 --rw=randwrite --bs=8k \
    --output-format=json+ --output=ramp_status_plus.json
fio $ramp --name=early --rw=randread --bs=4k --name=late --startdelay=2 --rw=randread \
    --bs=4k --output-format=json --output=startdelay_status.json
# A file that does not exist yet: fio lays it out first (its first snapshots without I/O),
# then starts the job's counters again. Written to a real disk (a tmpfs lays out too fast)
# and removed; the layout must outlast the first status interval.
rm -rf layout.tmp && mkdir layout.tmp
fio --name=layout --filename=layout.tmp/target.bin --size="${LAYOUT_SIZE:-2g}" \
    --rw=randread --bs=4k --rate_iops=2000 --time_based --runtime=2 --status-interval=1 \
    --output-format=json --output=layout_status.json
rm -rf layout.tmp
grep -q '"total_ios" : 0,' layout_status.json \
    || { echo "layout_status.json: the layout was faster than 1 s; set LAYOUT_SIZE=8g" >&2; exit 1; }
fio $common --name=trimmer --rw=randtrim --bs=4k --output-format=json --output=trim.json \
    || true
# Text before the JSON, as fio's error lines and client banners put it there.
{ echo "fio: this platform does not support process shared mutexes, forcing use of threads"
  echo "hostname=bench1, be=0, 64-bit, os=Linux, arch=x86-64, fio=$(fio --version), flags=1"
  cat randrw_group.json; } > preamble.txt
head -c 700 randrw_group.json > bad/truncated.json
echo '{"results": [1, 2, 3]}' > bad/not_fio.json
fio --version > FIO_VERSION
