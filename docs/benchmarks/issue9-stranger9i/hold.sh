#!/bin/bash
# hold.sh NAME -- env... : one bench invocation with uptime before/after, appended to holds.txt
name="$1"; shift
cd /work/wt/stranger9i
echo "$name start $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" >> /work/brief/out/stranger9i/holds.txt
env TCPOPT_NS_PREFIX=stranger9i- "$@" --out /work/brief/out/stranger9i/$name > /work/brief/out/stranger9i/$name.console 2>&1
echo "$name end $(date -u +%H:%M:%S) rc=$? $(uptime | sed 's/.*load/load/')" >> /work/brief/out/stranger9i/holds.txt
