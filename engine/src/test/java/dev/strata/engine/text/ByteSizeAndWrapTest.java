package dev.strata.engine.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ByteSizeAndWrapTest {
  @Test
  void oneBinaryUnitSystem() {
    assertEquals("0 B", ByteSize.iec(0));
    assertEquals("1023 B", ByteSize.iec(1023));
    assertEquals("1.0 KiB", ByteSize.iec(1024));
    assertEquals("88.0 KiB", ByteSize.iec(88 * 1024));
    // the seed's pinned KV figures: 416,858,112 B (int8 at 32K) and 227,377,152 B (q4_0)
    assertEquals("397.5 MiB", ByteSize.iec(416_858_112L));
    assertEquals("216.8 MiB", ByteSize.iec(227_377_152L));
    assertEquals("2.48 GiB", ByteSize.iec(2_665_016_320L));
    assertEquals("48.00 GiB", ByteSize.iec(48L << 30));
    assertEquals("2.00 TiB", ByteSize.iec(2L << 40));
    // 1023.96 MiB rounds to 1024.0: said as the next unit
    assertEquals("1.00 GiB", ByteSize.iec((1L << 30) - 40_000));
    assertEquals("-1.0 KiB", ByteSize.iec(-1024));
  }

  @Test
  void thePlansFixedUnitFigures() {
    // the plan's figures stay in GiB whatever the size, so its rows compare at a glance
    assertEquals("0.39", ByteSize.gib(416_858_112L));
    assertEquals("2.48", ByteSize.gib(2_665_016_320L));
    assertEquals("48.00", ByteSize.gib(48L << 30));
    assertEquals("0.01", ByteSize.gib(5_368_710L)); // just over 0.005 GiB: up
    assertEquals("0.00", ByteSize.gib(5_368_709L)); // just under: down
    // a shortfall rounds up: one byte short is 0.1, never 0.0
    assertEquals("0.1", ByteSize.gibUp(1));
    assertEquals("1.0", ByteSize.gibUp(1L << 30));
    assertEquals("1.1", ByteSize.gibUp((1L << 30) + 1));
  }

  @Test
  void wrapsAtSpacesUnderTheTextNeverSplittingAWord() {
    String path = "/Users/someone/Library/Application_Support/Strata/engine.yaml";
    List<String> l = Wrap.line("  1) model  the first shard is " + path + " and more words", 40);
    for (String x : l) {
      assertTrue(x.length() <= 40 || x.strip().equals(path), x);
    }
    assertTrue(l.stream().anyMatch(x -> x.strip().equals(path)), "the path stays whole: " + l);
    assertTrue(l.get(1).startsWith("     "), "continuation under the text after '1) ': " + l);
    assertEquals(List.of("short"), Wrap.line("short", 40));
    // colour sequences take no columns
    String red = "\u001b[31m" + "x".repeat(30) + "\u001b[0m";
    assertEquals(List.of(red), Wrap.line(red, 30));
    assertEquals(80, Wrap.width(0), "a terminal reporting 0 columns: 80");
    assertEquals(60, Wrap.width(60));
  }
}
