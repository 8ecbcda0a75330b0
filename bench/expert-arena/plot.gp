# plot.gp — the sweep's curves (run in the results folder: gnuplot -e "model='tiny-qwen3moe Q8_0'" plot.gp);
# columns of curve-*.dat: slots, miss rate, MB read per decoded token, decode tok/s (median)
if (!exists("model")) model = "tiny-qwen3moe"
set terminal pngcairo size 1400,460 font "DejaVu Sans,10" noenhanced
set output "plot.png"
set multiplot layout 1,3 title sprintf("%s (16 experts x 4 MoE layers, 4 used): decode against the expert arena's slots (real text, page cache dropped)", model)
set xlabel "arena slots (16 = one token's experts, 64 = every expert)"
set grid
set key bottom left
set yrange [0:*]
set title "miss rate (decode lookups)"
plot for [f in "int8 q4_0"] for [p in "lru lfu"] sprintf("curve-%s-%s.dat", f, p) using 1:2 with linespoints title sprintf("%s %s", f, p)
set title "bytes read per decoded token (MB)"
plot for [f in "int8 q4_0"] for [p in "lru lfu"] sprintf("curve-%s-%s.dat", f, p) using 1:3 with linespoints title sprintf("%s %s", f, p)
set title "decode tokens/s (median; 2 shared cores, noisy)"
set key top left
plot for [f in "int8 q4_0"] for [p in "lru lfu"] sprintf("curve-%s-%s.dat", f, p) using 1:4 with linespoints title sprintf("%s %s", f, p)
unset multiplot
