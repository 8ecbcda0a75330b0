# A MacBook Pro M5, 32 GB, macOS 27.0.1, as the Darwin stand-in answers for it (docs/PROBE.md).
# Written to match templates/hosts/m5-32.json: NOT captured on a Mac. Apple10 is the k4 family.
hw.ncpu = 10
hw.memsize = 34359738368
hw.nperflevels = 2
hw.perflevel0.physicalcpu = 4
hw.perflevel1.physicalcpu = 6
hw.physicalcpu = 10
machdep.cpu.brand_string = Apple M5
kern.osproductversion = 27.0.1
iogpu.wired_limit_mb = 0
metal.device = yes
metal.name = Apple M5
# Apple1-10, Mac2, Common1-3, Metal3, Metal4
metal.families = 1001,1002,1003,1004,1005,1006,1007,1008,1009,1010,2002,3001,3002,3003,5001,5002
# 3/4 of 32 GiB
metal.recommendedMaxWorkingSetSize = 25769803776
