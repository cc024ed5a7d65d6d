#!/usr/bin/env bash
# Regenerate the "ground truth" fio samples in this folder with Debian's fio. Every job uses
# ioengine=null (no device is touched; the numbers are synthetic, the format is real), except
# empty/error.json, whose job must fail to open its file. Takes about 15 s.
# Run: make fio-fixtures; then `python -m tests.regenerate_expected` and review the diff.
set -euo pipefail
cd "$(dirname "$0")"
command -v fio >/dev/null || { echo "fio is missing: run 'make fio-fixtures' (installs Debian's fio)" >&2; exit 1; }
command -v iconv >/dev/null || { echo "iconv is missing (Debian: libc-bin)" >&2; exit 1; }
# cs/ needs ports 8765 and 8766 free. fio servers share a port silently (SO_REUSEPORT), so
# check first, before anything is deleted, rather than run beside a stale server.
for port in 8765 8766; do
    if ss -ltn "sport = :$port" 2>/dev/null | grep -q LISTEN; then
        echo "port $port is already in use (a fio server left running?)" >&2; exit 1
    fi
done
mkdir -p rate clones cs utf16 empty sections
# Only what this script writes is removed; expected files beside the samples stay.
rm -f sections/*.json rate/*.json clones/*.log clones/*.json cs/*.json utf16/*.json empty/*.json empty/error.stderr.txt
fio --version > FIO_VERSION

# --- rate/: two rate-limited jobs in one job file, stonewall => two groups (groupid 0 and
# 1), no group_reporting => one record per job, each with its own rate in "job options".
cat > rate/rate.fio <<'EOF'
[global]
ioengine=null
size=64M
rw=randread
bs=4k
time_based
runtime=2

[slow]
stonewall
rate_iops=500

[fast]
stonewall
rate_iops=2000
EOF
fio --output-format=json+ --output=rate/rate.json rate/rate.fio
# the same with a byte rate (rate=), once for one direction and once as a read,write pair
cat > rate/rate_bytes.fio <<'EOF'
[global]
ioengine=null
size=64M
bs=4k
time_based
runtime=2

[bytes]
stonewall
rw=randread
rate=4m

[split]
stonewall
rw=randrw
rate=2m,1m
EOF
fio --output-format=json+ --output=rate/rate_bytes.json rate/rate_bytes.fio

# --- sections/: one reporting group made of two job sections with the same profile.
# Without group_reporting fio prints one record per clone (1 + 3 = 4 jobs ran); with it, one
# record whose "job options" are the first section's only (numjobs=2, though 4 jobs ran).
cat > sections/sections.fio <<'EOF'
[global]
ioengine=null
size=64M
rw=randread
bs=4k
time_based
runtime=1

[p]
numjobs=1

[q]
numjobs=3
EOF
fio --output-format=json --output=sections/split.json sections/sections.fio
cat > sections/grouped.fio <<'EOF'
[global]
ioengine=null
size=64M
rw=randread
bs=4k
time_based
runtime=1
group_reporting

[p]
numjobs=2

[q]
numjobs=2
EOF
fio --output-format=json --output=sections/grouped.json sections/grouped.fio
# one section, group_reporting, numjobs=4: one record that honestly says numjobs=4
fio --ioengine=null --size=64M --time_based --runtime=1 --name=one --rw=randread --bs=4k \
    --numjobs=4 --group_reporting --output-format=json --output=sections/one.json

# --- clones/: numjobs=2 without group_reporting => two JSON records named "cl" and one log
# set per clone (cl_*.1.log, cl_*.2.log). iodepth stays 1, so with the null engine fio
# records no submission latency: cl_slat.*.log come out empty (0 bytes) on purpose.
(cd clones && fio --ioengine=null --size=64M --time_based --runtime=2 --name=cl \
    --rw=randrw --rwmixread=70 --bs=4k --numjobs=2 --per_job_logs=1 --log_avg_msec=250 \
    --write_iops_log=cl --write_bw_log=cl --write_lat_log=cl \
    --output-format=json --output=cl.json)

# --- cs/ (and empty/cs_*): client/server mode, two fio servers on 127.0.0.1 with different
# ports. The trap stops them whatever happens (error, Ctrl-C).
server_pids=()
stop_servers() {
    local p
    for p in "${server_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${server_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    server_pids=()
}
trap stop_servers EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
wait_port() {  # a client started before the server listens fails at once
    local i
    command -v ss >/dev/null || { sleep 2; return 0; }  # no iproute2: just give it time
    for i in $(seq 50); do
        ss -ltn "sport = :$1" 2>/dev/null | grep -q LISTEN && return 0
        sleep 0.1
    done
    echo "fio server on port $1 did not start" >&2; return 1
}
for port in 8765 8766; do
    fio --server=ip:127.0.0.1,"$port" >/dev/null &
    server_pids+=("$!")
done
wait_port 8765; wait_port 8766
cat > cs/cs.fio <<'EOF'
[global]
ioengine=null
size=64M
time_based
runtime=1

[cs]
rw=randread
bs=4k
EOF
# The client copies the servers' text lines ("<hostname> cs: (g=0): ...") into the output
# before the JSON; --output does not avoid that, so the files start with that preamble.
timeout 60 fio --output-format=json --output=cs/cs.json \
    --client=127.0.0.1,8765 cs/cs.fio --client=127.0.0.1,8766 cs/cs.fio
timeout 60 fio --output-format=json+ --output=cs/cs_plus.json \
    --client=127.0.0.1,8765 cs/cs.fio --client=127.0.0.1,8766 cs/cs.fio
# "hostname" in the JSON is the host as typed after --client (type prefix dropped), so
# "localhost" stays "localhost"; two jobs per server, one of them without own options.
cat > cs/two.fio <<'EOF'
[global]
ioengine=null
size=64M
time_based
runtime=1
rw=randread
bs=4k

[plain]

[limited]
rate_iops=1000
EOF
timeout 60 fio --output-format=json --output=cs/cs_names.json \
    --client=ip:localhost,8765 cs/two.fio --client=127.0.0.1,8766 cs/two.fio
# A job the server drops (unknown option) and a job with stats=0: fio still writes JSON,
# with "client_stats": [] (exit status 0 in both cases).
printf '[dropped]\nioengine=null\nsize=1M\nbogus_option=1\n' > empty/dropped.fio
printf '[quiet]\nioengine=null\nsize=1M\nstats=0\n' > empty/quiet.fio
timeout 60 fio --output-format=json --output=empty/cs_dropped.json \
    --client=127.0.0.1,8765 empty/dropped.fio
timeout 60 fio --output-format=json --output=empty/cs_stats0.json \
    --client=127.0.0.1,8765 empty/quiet.fio
stop_servers
# Servers started with --status-interval send their snapshots: the client writes each as
# one more cumulative record of the same job and server in client_stats (not more load).
for port in 8765 8766; do
    fio --server=ip:127.0.0.1,"$port" --status-interval=1 >/dev/null &
    server_pids+=("$!")
done
wait_port 8765; wait_port 8766
printf '[global]\nioengine=null\nsize=64M\ntime_based\nruntime=3\nrate_iops=500\n\n[snap]\nrw=randread\nbs=4k\n' > cs/snap.fio
timeout 60 fio --output-format=json --output=cs/cs_snapshots.json \
    --client=127.0.0.1,8765 cs/snap.fio --client=127.0.0.1,8766 cs/snap.fio
# two clones of the job on each server: each snapshot holds both, side by side
printf '[global]\nioengine=null\nsize=64M\ntime_based\nruntime=3\nrate_iops=500\nnumjobs=2\n\n[snap2]\nrw=randread\nbs=4k\n' > cs/snap2.fio
timeout 60 fio --output-format=json --output=cs/cs_snapshots2.json \
    --client=127.0.0.1,8765 cs/snap2.fio --client=127.0.0.1,8766 cs/snap2.fio
stop_servers

# --- utf16/: one small real output re-encoded as Windows shells write redirected output.
fio --ioengine=null --size=64M --time_based --runtime=1 --name=rr --rw=randread --bs=4k \
    --output-format=json --output=utf16/randread.json
# UTF-16LE with BOM (FF FE), as `printf + iconv` and PowerShell's Out-File -Encoding Unicode
{ printf '\xff\xfe'; iconv -f UTF-8 -t UTF-16LE utf16/randread.json; } > utf16/randread.utf16le.json
# Windows PowerShell 5.1 `fio ... > out.json`: same, but it rewrites every line ending as CRLF
{ printf '\xff\xfe'; sed 's/$/\r/' utf16/randread.json | iconv -f UTF-8 -t UTF-16LE; } \
    > utf16/randread.ps51.json
# UTF-32LE with BOM (FF FE 00 00): its first two bytes look like a UTF-16LE BOM
{ printf '\xff\xfe\x00\x00'; iconv -f UTF-8 -t UTF-32LE utf16/randread.json; } \
    > utf16/randread.utf32le.json

# --- empty/: outputs without usable job records.
# stats=0: fio still prints one record, without "jobname" and with groupid 4294967295.
fio --ioengine=null --size=1M --name=ghost --stats=0 --output-format=json \
    --output=empty/stats0.json
# Standalone fio never prints "jobs": [] (a dropped job gives no JSON at all), so cut the
# ghost record out of stats0.json, keeping fio's layout.
sed '/^  "jobs" : \[$/,/^  \],\{0,1\}$/{//!d}' empty/stats0.json > empty/no_jobs.json
# A job whose file cannot be opened: fio exits 1 but writes JSON with "error" : 20.
# (Not /nonexistent/...: fio run as root creates missing directories and the file.)
fio --name=broken --ioengine=psync --rw=read --bs=4k --size=1M \
    --filename=/dev/null/broken.dat --output-format=json --output=empty/error.json \
    2> empty/error.stderr.txt || true
