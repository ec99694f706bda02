import re,sys,collections
# per-node syscall counts per MiB relayed, from an strace -f -yy file: the fd reading the most bytes is taken as the data source
for path in sys.argv[1:]:
    calls=collections.Counter(); rd=collections.Counter()
    for l in open(path):
        m=re.match(r'\d+ \S+ (\w+)\((\d+)',l)
        if not m: continue
        c,fd=m.groups(); calls[c]+=1
        if c=='recvfrom':
            r=l.rsplit('=',1)[-1].strip()
            if r.lstrip('-').isdigit() and int(r)>0: rd[fd]+=int(r)
    mib=sum(rd.values())/2**20
    print(path, "MiB read %.1f" % mib, " ".join("%s %d (%.2f/MiB)" % (c,n,n/mib) for c,n in calls.most_common()))
