# A MacBook Air M1, 8 GB, macOS 27.0.1, as the Darwin stand-in answers for it (docs/PROBE.md).
# Written to match templates/hosts/m1-8.json and Apple's published figures: NOT captured on a Mac
# (no Mac was available to this project). Sysctl values are stored in the kernel's types by the
# stand-in (hw.memsize an 8-byte quad, the counts 4-byte ints, strings NUL-terminated).
hw.ncpu = 8
hw.memsize = 8589934592
hw.nperflevels = 2
hw.perflevel0.physicalcpu = 4
hw.perflevel1.physicalcpu = 4
hw.physicalcpu = 8
machdep.cpu.brand_string = Apple M1
kern.osproductversion = 27.0.1
iogpu.wired_limit_mb = 0
metal.device = yes
metal.name = Apple M1
# Apple1-7, Mac2, Common1-3, Metal3, Metal4 (MTLGPUFamily values)
metal.families = 1001,1002,1003,1004,1005,1006,1007,2002,3001,3002,3003,5001,5002
# 5461.34 MiB: what llama.cpp logs print for 8 GB M1 Macs
metal.recommendedMaxWorkingSetSize = 5726633984
