#!/usr/bin/env bash
# Regenerate the fio interval-log samples with Debian's fio (ioengine=null). Run via
# `make fio-fixtures`; then `python -m tests.regenerate_expected` and review the diff.
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures'" >&2; exit 1; }
rm -f ./*.log ./*.json ./*.fio
# windowed logs (log_avg_msec), two clones of one job, parameters in win.json
fio --ioengine=null --size=64M --time_based --runtime=1 --name=win --rw=randrw \
    --rwmixread=70 --bs=4k --numjobs=2 --iodepth=2 --group_reporting --log_avg_msec=200 \
    --per_job_logs=1 --write_iops_log=win --write_bw_log=win --write_lat_log=win \
    --output-format=json --output=win.json
# per-I/O latency log (no log_avg_msec), rate-limited to keep it small
fio --ioengine=null --size=64M --time_based --runtime=2 --name=perio --rw=randwrite \
    --bs=8k --rate_iops=50 --per_job_logs=1 --write_lat_log=perio \
    --output-format=json --output=perio.json
# three clones, 500 ms windows: fio writes a job's last iops/bw window only when its
# sampling tick comes before the job ends (its lat log always has it). clonetail ends
# 300 ms into a window: no clone counts it. A 3 s run is repeated until every clone has
# it (clonefull), or some but not all (clonemixed).
clone="--ioengine=null --size=64M --time_based --rw=randread --bs=4k --numjobs=3
    --rate_iops=4000 --log_avg_msec=500"
clones() {  # NAME RUNTIME: run the job, print how many clones logged the last window
    fio $clone --runtime="$2" --name="$1" --write_iops_log="$1" --write_bw_log="$1" \
        --write_lat_log="$1" --output-format=json --output="$1.json"
    for c in 1 2 3; do tail -1 "$1_iops.$c.log" | cut -d, -f1; done | awk '$1 >= 2990' | wc -l
}
clones clonetail 2800ms >/dev/null
for want in "clonefull 3" "clonemixed [12]"; do
    set -- $want
    for _ in $(seq 20); do [[ $(clones "$1" 3) == $2 ]] && continue 2; done
    echo "$1: 20 runs and none with $2 clones logging the last window" >&2; exit 1
done
# A per-I/O log of a run that ends inside a window (2.5 s): its third second holds half a
# second of I/O, so the window is rejected (its runtime is in tail.json)
fio --ioengine=null --size=64M --time_based --runtime=2500ms --name=tail --rw=randrw \
    --rwmixread=50 --bs=4k --rate_iops=100,100 --per_job_logs=1 --write_iops_log=tail \
    --write_bw_log=tail --write_lat_log=tail --output-format=json --output=tail.json
# two jobs in one run: fio numbers its threads across the jobs, so [b]'s two clones write
# b_*.2.log and b_*.3.log (twojobs.fio beside its JSON)
cat > twojobs.fio <<'JOB'
[global]
ioengine=null
size=64M
time_based
runtime=3
bs=4k
log_avg_msec=500
write_iops_log
write_bw_log
write_lat_log
[a]
rw=randwrite
rate_iops=1000
[b]
rw=randread
numjobs=2
rate_iops=2000
startdelay=1
JOB
fio twojobs.fio --output-format=json --output=twojobs.json
# only a bw log, reads of 4K and writes of 16K: each direction's IOPS by its own size
fio --ioengine=null --size=64M --time_based --runtime=2 --name=bwonly --rw=randrw \
    --rwmixread=50 --bs=4k,16k --rate_iops=1000,1000 --log_avg_msec=500 \
    --write_bw_log=bwonly --output-format=json --output=bwonly.json
# each window's maximum instead of its mean (log_max_value=1): the rates are read, the
# latency log (maxima) left out
fio --ioengine=null --size=64M --time_based --runtime=1 --name=maxval --rw=randread \
    --bs=4k --rate_iops=2000 --log_avg_msec=250 --log_max_value=1 --write_iops_log=maxval \
    --write_lat_log=maxval --output-format=json --output=maxval.json
# the same with two clones reported as one group: fio's job_runtime is then the clones'
# sum (5,001 ms), their directions' runtime the longest clone's
fio --ioengine=null --size=64M --time_based --runtime=2500ms --name=tailgr --rw=randrw \
    --rwmixread=50 --bs=4k --rate_iops=100,100 --numjobs=2 --group_reporting \
    --per_job_logs=1 --write_iops_log=tailgr --write_lat_log=tailgr \
    --output-format=json --output=tailgr.json
# per-I/O logs stamped with the clock (log_unix_epoch=1): no runtime to compare with
fio --ioengine=null --size=64M --time_based --runtime=2500ms --name=epoch --rw=randread \
    --bs=4k --rate_iops=100 --log_unix_epoch=1 --per_job_logs=1 --write_iops_log=epoch \
    --output-format=json --output=epoch.json
# logs without thread numbers (per_job_logs=0) of the second job of a run
cat > nonum.fio <<'JOB'
[global]
ioengine=null
size=64M
time_based
runtime=2
bs=4k
log_avg_msec=500
per_job_logs=0
[c]
rw=randwrite
rate_iops=1000
write_iops_log=c
[d]
rw=randread
rate_iops=2000
write_iops_log=d
JOB
fio nonum.fio --output-format=json --output=nonum.json
# a per-I/O log of two clones without thread numbers (per_job_logs=0): fio writes the
# clones one after the other into one file, each from its own time 0
fio --ioengine=null --size=64M --time_based --runtime=2 --name=pio0 --rw=randread --bs=4k \
    --rate_iops=200 --numjobs=2 --per_job_logs=0 --write_iops_log=pio0 \
    --output-format=json --output=pio0.json
fio --version > FIO_VERSION
# a log whose job no JSON or job file describes, a corrupt log and a log of two runs (fio
# 2.x appended each run to an existing log): the last two of a job of one clone (solo)
rm -rf bad/corrupt bad/appended
mkdir -p bad/orphan bad/corrupt bad/appended
head -3 win_iops.1.log > bad/orphan/lost_iops.1.log
( cd bad/appended && fio --ioengine=null --size=64M --time_based --runtime=1 --name=solo \
    --rw=randread --bs=4k --log_avg_msec=200 --write_iops_log=solo \
    --output-format=json --output=solo.json >/dev/null )
cp bad/appended/solo.json bad/corrupt/
{ head -2 bad/appended/solo_iops.1.log; echo "400, twelve, 0, 0, 0"; } > bad/corrupt/solo_iops.1.log
cat bad/appended/solo_iops.1.log bad/appended/solo_iops.1.log > bad/appended/two.log
mv bad/appended/two.log bad/appended/solo_iops.1.log
