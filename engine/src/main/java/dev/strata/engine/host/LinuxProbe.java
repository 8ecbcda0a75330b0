package dev.strata.engine.host;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The Linux probe: reads /proc, /sys and /etc/os-release (no process spawned, no native call).
 *
 * <ul>
 *   <li>{@code cpu_cores}: the CPUs this process may run on ({@code Cpus_allowed_list} of
 *       /proc/self/status, within /sys/devices/system/cpu/online), which is what {@code nproc}
 *       counts;
 *   <li>performance/efficiency: Intel hybrid parts list their P and E CPUs in
 *       /sys/devices/cpu_core/cpus and /sys/devices/cpu_atom/cpus; arm big.LITTLE parts give each
 *       CPU a {@code cpu_capacity}, and the lowest class is the efficiency one; otherwise all are
 *       performance cores;
 *   <li>{@code memory_bytes}: MemTotal of /proc/meminfo; {@code chip}: {@code model name} of
 *       /proc/cpuinfo (or {@code Hardware}, or the arm {@code CPU part}); {@code os_version}:
 *       PRETTY_NAME of /etc/os-release;
 *   <li>what is available now (not a host JSON fact; the launch's memory check, docs/LAUNCH.md):
 *       MemAvailable and MemTotal of /proc/meminfo ({@link AvailableMemory}).
 * </ul>
 *
 * The parsers are pure and public to this package so tests feed them recorded file texts; {@link
 * #probe(Path)} reads a whole tree under any root, so tests also run it on a recorded tree.
 */
public final class LinuxProbe {
  private LinuxProbe() {}

  /** Probes this machine. */
  public static ProbeResult probe() {
    return probe(new File("/"));
  }

  /**
   * Probes the /proc, /sys and /etc found under {@code root} (tests pass a recorded tree). Written
   * without lambdas, streams or regexes: in a fresh JVM their first use costs more than the probe.
   */
  static ProbeResult probe(Path root) {
    return probe(root.toFile());
  }

  /**
   * java.io rather than java.nio.file: the JVM has java.io set up before main, while the first use
   * of NIO's file system costs tens of milliseconds in a fresh JVM.
   */
  private static ProbeResult probe(File root) {
    List<String> notes = new ArrayList<>();

    String status = read(root, "proc/self/status");
    String allowedList = status == null ? null : allowedCpus(status).orElse(null);
    BitSet allowed = allowedList == null ? null : cpuList(allowedList);
    String onlineList = read(root, "sys/devices/system/cpu/online");
    BitSet online = onlineList == null ? null : cpuList(onlineList);
    BitSet cpus = new BitSet();
    if (allowed != null) {
      cpus.or(allowed);
      if (online != null) {
        cpus.and(online);
      }
    }
    if (cpus.isEmpty() && online != null) {
      cpus.or(online);
    }
    if (cpus.isEmpty()) {
      cpus.set(0, Runtime.getRuntime().availableProcessors());
      notes.add(
          "no /proc/self/status or /sys CPU list: using the JVM's count, " + cpus.cardinality());
    }
    int cpuCores = Math.min(cpus.cardinality(), 8192);
    int[] split = split(root, cpus, cpuCores);

    String meminfo = read(root, "proc/meminfo");
    long memory = meminfo == null ? -1 : memTotalBytes(meminfo).orElse(-1);
    if (memory <= 0) {
      memory =
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
              .getTotalMemorySize();
      notes.add("no MemTotal in /proc/meminfo: using the JVM's total memory, " + memory + " bytes");
    }

    String cpuinfo = read(root, "proc/cpuinfo");
    String chip = cpuinfo == null ? "" : ChipName.clean(cpuModel(cpuinfo).orElse(""));
    if (chip.isEmpty()) {
      chip = "unknown";
      notes.add("no CPU model in /proc/cpuinfo: chip reported as 'unknown'");
    }
    String osRelease = read(root, "etc/os-release");
    if (osRelease == null) {
      osRelease = read(root, "usr/lib/os-release");
    }
    String os = osRelease == null ? "" : ChipName.clean(prettyName(osRelease).orElse(""));
    if (os.isEmpty()) {
      os = ChipName.clean("Linux " + System.getProperty("os.version", ""));
      notes.add("no PRETTY_NAME in /etc/os-release: os_version reported as '" + os + "'");
    }

    HostFacts facts =
        new HostFacts("linux", chip, cpuCores, split[0], split[1], memory, 0, false, false, os, 0);
    HostFactsRules.check(facts, "probe");
    return new ProbeResult(
        facts,
        notes,
        OptionalLong.empty(),
        true,
        meminfo == null ? null : AvailableMemory.fromMeminfo(meminfo, "/proc/meminfo"));
  }

  /** {performance, efficiency} among {@code cpus}. */
  private static int[] split(File root, BitSet cpus, int n) {
    String coreList = read(root, "sys/devices/cpu_core/cpus");
    String atomList = read(root, "sys/devices/cpu_atom/cpus");
    if (coreList != null && atomList != null) {
      BitSet p = cpuList(coreList);
      p.and(cpus);
      BitSet e = cpuList(atomList);
      e.and(cpus);
      if (p.cardinality() >= 1 && p.cardinality() + e.cardinality() <= n) {
        return new int[] {p.cardinality(), e.cardinality()};
      }
    }
    TreeMap<Integer, Integer> capacity = new TreeMap<>();
    for (int cpu = cpus.nextSetBit(0); cpu >= 0; cpu = cpus.nextSetBit(cpu + 1)) {
      // StringBuilder, not +: the first indy string concatenation in a JVM costs milliseconds.
      String path =
          new StringBuilder("sys/devices/system/cpu/cpu")
              .append(cpu)
              .append("/cpu_capacity")
              .toString();
      String text = read(root, path);
      Integer c = text == null ? null : integer(text);
      if (c == null) {
        capacity.clear();
        break;
      }
      Integer seen = capacity.get(c);
      capacity.put(c, seen == null ? 1 : seen + 1);
    }
    return capacitySplit(capacity, n);
  }

  /**
   * {performance, efficiency} from a histogram capacity → CPU count: with two or more classes the
   * lowest is the efficiency one (LITTLE), every higher class performance (big and prime); one
   * class or none means all performance.
   */
  static int[] capacitySplit(TreeMap<Integer, Integer> capacityCounts, int cpus) {
    if (capacityCounts.size() < 2) {
      return new int[] {cpus, 0};
    }
    int efficiency = capacityCounts.firstEntry().getValue();
    int total = 0;
    for (int count : capacityCounts.values()) {
      total += count;
    }
    return new int[] {total - efficiency, efficiency};
  }

  /** A kernel CPU list such as {@code 0-3,8,10-11} (empty or malformed parts are skipped). */
  static BitSet cpuList(String text) {
    BitSet set = new BitSet();
    for (String part : text.strip().split(",")) {
      part = part.strip();
      if (part.isEmpty()) {
        continue;
      }
      try {
        int dash = part.indexOf('-');
        int lo = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
        int hi = dash < 0 ? lo : Integer.parseInt(part.substring(dash + 1));
        if (lo >= 0 && hi >= lo && hi < 65536) {
          set.set(lo, hi + 1);
        }
      } catch (NumberFormatException e) {
        // a malformed part contributes nothing
      }
    }
    return set;
  }

  /** The {@code Cpus_allowed_list:} value of /proc/self/status (the affinity mask nproc counts). */
  static Optional<String> allowedCpus(String status) {
    return field(status, "Cpus_allowed_list");
  }

  /** MemTotal of /proc/meminfo in bytes (the file says kB, meaning KiB). */
  static OptionalLong memTotalBytes(String meminfo) {
    OptionalLong total = meminfoBytes(meminfo, "MemTotal");
    return total.isPresent() && total.getAsLong() == 0 ? OptionalLong.empty() : total;
  }

  /**
   * A size field of /proc/meminfo ({@code MemTotal}, {@code MemAvailable}) in bytes: {@code N kB}
   * as the kernel writes it; empty when absent, not a number or negative.
   */
  static OptionalLong meminfoBytes(String meminfo, String name) {
    Optional<String> v = field(meminfo, name);
    if (v.isEmpty()) {
      return OptionalLong.empty();
    }
    String value = v.get();
    int space = value.indexOf(' ');
    String number = space < 0 ? value : value.substring(0, space);
    String suffix = space < 0 ? "" : value.substring(space + 1).strip();
    try {
      long kib = Long.parseLong(number);
      long unit = suffix.equalsIgnoreCase("kB") ? 1024 : 1;
      return kib >= 0 && kib <= Long.MAX_VALUE / unit
          ? OptionalLong.of(kib * unit)
          : OptionalLong.empty();
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * The CPU model from /proc/cpuinfo: {@code model name} (x86 and many arm kernels), else {@code
   * Hardware} (older arm SoCs), else the arm {@code CPU implementer}/{@code CPU part} pair named
   * from a short table of common cores.
   */
  static Optional<String> cpuModel(String cpuinfo) {
    Optional<String> model = field(cpuinfo, "model name");
    if (model.isPresent() && !model.get().isBlank()) {
      return model;
    }
    Optional<String> hardware = field(cpuinfo, "Hardware");
    if (hardware.isPresent() && !hardware.get().isBlank()) {
      return hardware;
    }
    Optional<String> part = field(cpuinfo, "CPU part");
    return part.isEmpty()
        ? Optional.empty()
        : Optional.of(ArmParts.name(field(cpuinfo, "CPU implementer").orElse(""), part.get()));
  }

  /** PRETTY_NAME of an os-release file, unquoted as the shell would. */
  static Optional<String> prettyName(String osRelease) {
    for (String line : osRelease.split("\n")) {
      line = line.strip();
      if (!line.startsWith("PRETTY_NAME=")) {
        continue;
      }
      String v = line.substring("PRETTY_NAME=".length());
      if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
        v = unescape(v.substring(1, v.length() - 1));
      } else if (v.length() >= 2 && v.startsWith("'") && v.endsWith("'")) {
        v = v.substring(1, v.length() - 1);
      }
      return Optional.of(v);
    }
    return Optional.empty();
  }

  /** Undoes the shell's backslash escapes inside double quotes: \\", \\\\, \\$ and \\`. */
  private static String unescape(String v) {
    StringBuilder b = new StringBuilder(v.length());
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '\\' && i + 1 < v.length() && "\"\\$`".indexOf(v.charAt(i + 1)) >= 0) {
        c = v.charAt(++i);
      }
      b.append(c);
    }
    return b.toString();
  }

  /** The value of the first {@code key : value} line (spaces or tabs around the colon). */
  private static Optional<String> field(String text, String key) {
    for (String line : text.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).strip().equals(key)) {
        return Optional.of(line.substring(colon + 1).strip());
      }
    }
    return Optional.empty();
  }

  private static Integer integer(String s) {
    try {
      return Integer.parseInt(s.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** A small file's text, or null when it is missing or unreadable. */
  private static String read(File root, String relative) {
    // /proc and /sys files report size 0: read them whole, but never more than 1 MiB.
    try (FileInputStream in = new FileInputStream(new File(root, relative))) {
      return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
    } catch (IOException | SecurityException e) {
      return null;
    }
  }

  /** Names of common arm cores by implementer and part (from the kernel's cputype.h values). */
  static final class ArmParts {
    private ArmParts() {}

    static String name(String implementer, String part) {
      String p = part.strip().toLowerCase(java.util.Locale.ROOT);
      String i = implementer.strip().toLowerCase(java.util.Locale.ROOT);
      String core =
          i.equals("0x41")
              ? switch (p) {
                case "0xd03" -> "Cortex-A53";
                case "0xd04" -> "Cortex-A35";
                case "0xd05" -> "Cortex-A55";
                case "0xd07" -> "Cortex-A57";
                case "0xd08" -> "Cortex-A72";
                case "0xd09" -> "Cortex-A73";
                case "0xd0a" -> "Cortex-A75";
                case "0xd0b" -> "Cortex-A76";
                case "0xd0c" -> "Neoverse-N1";
                case "0xd0d" -> "Cortex-A77";
                case "0xd40" -> "Neoverse-V1";
                case "0xd41" -> "Cortex-A78";
                case "0xd44" -> "Cortex-X1";
                case "0xd46" -> "Cortex-A510";
                case "0xd47" -> "Cortex-A710";
                case "0xd48" -> "Cortex-X2";
                case "0xd49" -> "Neoverse-N2";
                case "0xd4f" -> "Neoverse-V2";
                default -> null;
              }
              : null;
      if (core != null) {
        return "ARM " + core;
      }
      return "arm CPU (implementer " + (i.isEmpty() ? "?" : i) + ", part " + p + ")";
    }
  }
}
