package dev.strata.engine.trust;

import static dev.strata.engine.trust.OwnerRule.Place.ABOVE;
import static dev.strata.engine.trust.OwnerRule.Place.FILE;
import static dev.strata.engine.trust.OwnerRule.Place.HOLDER;
import static dev.strata.engine.trust.OwnerRule.Place.LINK;
import static dev.strata.engine.trust.OwnerRule.Place.SHARED_HOLDER;
import static dev.strata.engine.trust.OwnerRule.Problem.OWNER;
import static dev.strata.engine.trust.OwnerRule.Problem.WRITABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class OwnerRuleTest {
  static final int ME = 1000;

  @Test
  void rootOrTheLaunchingUserMayOwnIt() {
    for (OwnerRule.Place p : OwnerRule.Place.values()) {
      assertNull(OwnerRule.problem(0, 0755, ME, p), p.toString());
      assertNull(OwnerRule.problem(ME, 0700, ME, p), p.toString());
      assertEquals(OWNER, OwnerRule.problem(1001, 0755, ME, p), p.toString());
    }
    // launched by root: a file of another user is refused too
    assertEquals(OWNER, OwnerRule.problem(ME, 0755, 0, FILE));
  }

  @Test
  void groupOrOtherWriteIsRefusedExceptForAStickyRootFolderPassedThrough() {
    for (int perms : new int[] {0775, 0757, 0777, 0664, 0646}) {
      assertEquals(WRITABLE, OwnerRule.problem(ME, perms, ME, FILE));
      assertEquals(WRITABLE, OwnerRule.problem(ME, perms, ME, HOLDER));
      assertEquals(WRITABLE, OwnerRule.problem(ME, perms, ME, ABOVE));
    }
    assertNull(OwnerRule.problem(0, 01777, ME, ABOVE)); // /tmp above a folder that passes
    assertNull(OwnerRule.problem(0, 01775, ME, ABOVE));
    assertEquals(WRITABLE, OwnerRule.problem(0, 01777, ME, HOLDER)); // /tmp holding the file
    assertEquals(WRITABLE, OwnerRule.problem(ME, 01777, ME, ABOVE)); // sticky but not root's
    assertEquals(WRITABLE, OwnerRule.problem(0, 0777, ME, ABOVE)); // root's but not sticky
    assertEquals(WRITABLE, OwnerRule.problem(0, 01777, ME, FILE));
    // a config's folder (read whole through its descriptor): /tmp may hold it, nothing else may
    assertNull(OwnerRule.problem(0, 01777, ME, SHARED_HOLDER));
    assertEquals(WRITABLE, OwnerRule.problem(ME, 01777, ME, SHARED_HOLDER));
    assertEquals(WRITABLE, OwnerRule.problem(0, 0777, ME, SHARED_HOLDER));
    assertEquals(WRITABLE, OwnerRule.problem(ME, 0775, ME, SHARED_HOLDER));
    assertEquals(OWNER, OwnerRule.problem(ME + 1, 01777, ME, SHARED_HOLDER));
  }

  @Test
  void aLinkCountsByItsOwnerOnly() {
    assertNull(OwnerRule.problem(ME, 0777, ME, LINK));
    assertEquals(OWNER, OwnerRule.problem(1001, 0777, ME, LINK));
  }
}
