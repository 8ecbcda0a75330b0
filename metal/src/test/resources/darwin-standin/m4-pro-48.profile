# A Mac mini M4 Pro (14-core CPU, 20-core GPU), 48 GB, macOS 27.0.1: the seed's machine, as the
# Darwin stand-in answers for it (docs/PROBE.md). Written to match templates/hosts/m4-pro-48.json:
# NOT captured on a Mac (no Mac was available to this project).
hw.ncpu = 14
hw.memsize = 51539607552
hw.nperflevels = 2
hw.perflevel0.physicalcpu = 10
hw.perflevel1.physicalcpu = 4
hw.physicalcpu = 14
machdep.cpu.brand_string = Apple M4 Pro
kern.osproductversion = 27.0.1
iogpu.wired_limit_mb = 0
metal.device = yes
metal.name = Apple M4 Pro
# Apple1-9, Mac2, Common1-3, Metal3, Metal4
metal.families = 1001,1002,1003,1004,1005,1006,1007,1008,1009,2002,3001,3002,3003,5001,5002
# 3/4 of 48 GiB
metal.recommendedMaxWorkingSetSize = 38654705664
