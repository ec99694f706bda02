import re,sys,subprocess
# stats.py RUN MODE: per measured row, from the DC's ss trace: samples, samples in STARTUP, samples with RTT > 320 ms, lost per sample
r,mode=sys.argv[1],sys.argv[2]
lines=subprocess.run(["python3","ss-parse.py",r+"/ss-dc.txt"],capture_output=True,text=True).stdout.splitlines()
log=open(r+"/run.log").read()
def sec(t): h,m,s=t.split(":"); return int(h)*3600+int(m)*60+float(s)
def f(l,k):
    p=l.split(); v=p[p.index(k)+1]; return float(v) if v!="-" else 0
for end,rtt,loss,mb,dur in re.findall(r"(\d\d:\d\d:\d\d) \+\d+s\]   "+re.escape(mode)+r" 250 Mbit/s rtt=(\d+)ms loss=([\d.]+)%: ([\d.]+) Mbit/s in ([\d.]+)",log):
    e=sec(end)-2; s=e-float(dur)+1
    st=[l for l in lines if s<=sec(l.split()[0])<=e]
    su=[l for l in st if "gain 2.88" in l]
    print(f"{r} {mode} {rtt}/{loss}: {mb} Mbit/s; ss samples {len(st)}, in STARTUP {len(su)} (pacing {'/'.join('%.0f'%x for x in sorted(set(f(l,'pace') for l in su)))}); RTT > 320 ms in {sum(f(l,'rtt')>320 for l in st)}; lost per sample max {max(f(l,'lost') for l in st):.0f} mean {sum(f(l,'lost') for l in st)/len(st):.0f}; PROBE_RTT (cwnd 4) in {sum(f(l,'cwnd')<=4 for l in st)}")
