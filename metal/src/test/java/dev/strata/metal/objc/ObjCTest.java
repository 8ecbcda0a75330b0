package dev.strata.metal.objc;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class ObjCTest {
  @Test
  @DisabledOnOs(OS.MAC)
  void offTheMacTheRuntimeIsAClearErrorNotACrash() {
    IllegalStateException e = assertThrows(IllegalStateException.class, ObjC::runtime);
    org.junit.jupiter.api.Assertions.assertTrue(
        e.getMessage().startsWith("the Objective-C runtime is not available"), e.getMessage());
  }

  @Test
  @EnabledOnOs(OS.MAC)
  void sendsAreCachedPerSignatureAndMustStartWithSelfAndCmd() {
    ObjC objc = ObjC.runtime();
    FunctionDescriptor supports = FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, JAVA_LONG);
    assertSame(
        objc.msgSend(supports),
        objc.msgSend(FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, JAVA_LONG)));
    assertThrows(
        IllegalArgumentException.class,
        () -> objc.msgSend(FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG)));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            objc.msgSend(
                FunctionDescriptor.of(
                    MemoryLayout.structLayout(JAVA_LONG, JAVA_LONG, JAVA_LONG), ADDRESS, ADDRESS)));
  }
}
