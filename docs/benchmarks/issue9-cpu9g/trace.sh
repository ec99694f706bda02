#!/bin/bash
# Syscall sequence of my own loopback pair under a 4-stream iperf3 -R (strace -f -yy for 2 s per node; counts only, strace slows)
set -u
cd /work/wt/cpu9g
export TCPOPT_NS_PREFIX=cpu9g- TCPOPT_JAR=${JAR:-/work/brief/out/cpu9g/jars/main.jar}
O=/work/brief/out/cpu9g/trace${TAG:-}; mkdir -p $O
NS=cpu9g-trace
ip netns del $NS 2>/dev/null; ip netns add $NS; ip netns exec $NS ip link set lo up
ip netns exec $NS sysctl -q -w net.ipv4.tcp_rmem="4096 131072 33554432" net.ipv4.tcp_wmem="4096 16384 33554432"
JAVA_OPTS=-Xmx1g bench/testbed/tcpopt-nodes.sh up --loopback $NS > $O/up.log 2>&1 || { cat $O/up.log; exit 1; }
pids=($(bench/testbed/tcpopt-nodes.sh pids --loopback $NS)); echo "branch ${pids[0]} dc ${pids[1]}"
ip netns exec $NS iperf3 -s -B 127.0.0.1 -p 5201 > $O/iperf-s.log 2>&1 & SRV=$!
sleep 1
ip netns exec $NS iperf3 -c 127.0.0.1 -p 18201 -R -C cubic -P 4 -n 6G > $O/warm.log 2>&1
ip netns exec $NS iperf3 -c 127.0.0.1 -p 18201 -R -C cubic -P 4 -t 25 > $O/run.log 2>&1 & CL=$!
sleep 8
timeout -s INT 2 strace -f -yy -tt -e trace=epoll_ctl,sendto,recvfrom,writev,write,read,sendmsg -p ${pids[1]} -o $O/dc.strace 2>/dev/null
sleep 2
timeout -s INT 2 strace -f -yy -tt -e trace=epoll_ctl,sendto,recvfrom,writev,write,read,sendmsg -p ${pids[0]} -o $O/branch.strace 2>/dev/null
wait $CL; tail -4 $O/run.log
kill $SRV
bench/testbed/tcpopt-nodes.sh down --loopback $NS
ip netns del $NS
