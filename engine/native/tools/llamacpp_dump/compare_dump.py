#!/usr/bin/env python3
"""compare_dump.py LLAMA.bin REF.bin [MAX_LAYER] — per tensor of strata-ref's first batch (STRATA_DUMP records), the share of
values bit-identical to llama.cpp's tensor of the same name (lc_dump.c records; the first rows) and the largest
difference. Names: strata-ref's Qmm/Kmm are llama.cpp's first Qcur/Kcur (the matrix products), Qrope/Krope its third
(after RoPE)."""
import struct, sys, numpy as np
def rd(p):
    f=open(p,'rb').read(); o=0; r=[]
    while o<len(f):
        nm=f[o:o+64].split(b'\0')[0].decode(); ne=struct.unpack('4i',f[o+64:o+80]); n=ne[0]*ne[1]*ne[2]*ne[3]
        r.append((nm,ne,np.frombuffer(f,dtype=np.float32,count=n,offset=o+80))); o+=80+4*n
    return r
lc=rd(sys.argv[1]); st=rd(sys.argv[2]); maxl=int(sys.argv[3]) if len(sys.argv)>3 else 99
def lcget(name, occ=0, last=False):
    xs=[x for x in lc if x[0]==name]
    if not xs: return None
    return xs[-1][2] if last else xs[occ][2]
m={'Qmm':('Qcur',0),'Kmm':('Kcur',0),'Qrope':('Qcur',2),'Krope':('Kcur',2),'wo':(None,0)}
seen=0
for nm,ne,d in st:
    if nm=='embd':
        seen+=1
        if seen>1: break
    base,_,l=nm.rpartition('-')
    if not base: base=nm; l=''
    if l and int(l)>maxl: break
    ln,occ=m.get(base,(base,0))
    if base=='wo':
        # attn out after wo = ffn_inp - l_in; skip
        continue
    key=ln+('-'+l if l else '')
    if base=='result_output':
        a=lcget('result_output', last=True)
    else:
        a=lcget(key,occ)
    if a is None: print(nm,'no lc'); continue
    n=d.size
    if base in('result_norm','result_output'):
        a=a[-n:]
    else:
        a=a[:n]
    diff=np.abs(a-d); rel=diff.max()/ (np.abs(a).max()+1e-30)
    print(f"{nm:20s} n={n:7d} equal={np.mean(a==d)*100:7.3f}% maxabs={diff.max():.3e} rel={rel:.2e}")
