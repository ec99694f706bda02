#!/bin/bash
# pair1.sh: under one hold of the lock, main's harness then the harness with tcp_min_rtt_wlen=10, main's jar in both; twice
cd /work/brief/out/lossy9e
J=/work/brief/out/lossy9e/jars/main-13234c0.jar
ROWS="60/1 150/0 300/0 300/0.5 300/2" TREE=/work/brief/out/lossy9e/mainbench ./run.sh p1-A-main $J tcpopt
ROWS="60/1 150/0 300/0 300/0.5 300/2" ./run.sh p1-B-wlen10 $J tcpopt
ROWS="150/0 300/0 300/0.5 300/2" ./run.sh p2-B-wlen10 $J tcpopt
ROWS="150/0 300/0 300/0.5 300/2" TREE=/work/brief/out/lossy9e/mainbench ./run.sh p2-A-main $J tcpopt
