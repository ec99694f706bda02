package io.tcpopt.reduction.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FingerprintTableTest {
  /** Random adds, finds, touches and removes, checked against a LinkedHashMap in access order. */
  @Test
  void behavesAsAnAccessOrderedMap() {
    for (long seed = 1; seed <= 4; seed++) {
      Random r = new Random(seed);
      // few distinct keys (many repeats and removals) and keys differing in one half only
      int keySpace = seed % 2 == 0 ? 300 : 5000;
      FingerprintTable t = new FingerprintTable(2, 4);
      LinkedHashMap<Fingerprint, int[]> model = new LinkedHashMap<>(16, 0.75f, true);
      for (int step = 0; step < 60_000; step++) {
        int k = r.nextInt(keySpace);
        Fingerprint f = seed == 3 ? new Fingerprint(0, k) : new Fingerprint(k * 31L, k % 7);
        int op = r.nextInt(10);
        int e = t.find(f);
        assertEquals(model.containsKey(f), e >= 0, "step " + step);
        if (op < 4) { // put
          int v = r.nextInt();
          if (e < 0) {
            e = t.add(f.high(), f.low());
            assertEquals(0, t.field(e, 0));
          } else {
            t.touch(e);
          }
          t.field(e, 0, v);
          t.field(e, 1, ~v);
          model.put(f, new int[] {v, ~v});
        } else if (op < 6 && e >= 0) { // get
          t.touch(e);
          int[] m = model.get(f);
          assertEquals(m[0], t.field(e, 0));
          assertEquals(m[1], t.field(e, 1));
        } else if (op < 8 && e >= 0) { // remove
          t.remove(e);
          model.remove(f);
        } else if (op == 8 && t.size() > 0) { // evict the eldest
          int eldest = t.eldest();
          Iterator<Map.Entry<Fingerprint, int[]>> it = model.entrySet().iterator();
          assertEquals(it.next().getKey(), t.fingerprint(eldest));
          it.remove();
          t.remove(eldest);
        } else if (op == 9 && r.nextInt(2000) == 0) {
          t.clear();
          model.clear();
        }
        assertEquals(model.size(), t.size());
      }
      List<Fingerprint> order = new ArrayList<>();
      for (int e = t.eldest(); e >= 0; e = t.newerThan(e)) {
        order.add(t.fingerprint(e));
        assertEquals(model.get(t.fingerprint(e))[0], t.field(e, 0));
      }
      assertEquals(new ArrayList<>(model.keySet()), order, "LRU order");
    }
  }

  @Test
  void anUnorderedTableIsAPlainMap() {
    Random r = new Random(9);
    FingerprintTable t = new FingerprintTable(1, 2, false);
    Map<Fingerprint, Integer> model = new java.util.HashMap<>();
    for (int step = 0; step < 50_000; step++) {
      Fingerprint f = new Fingerprint(r.nextInt(2000), 7);
      int e = t.find(f);
      assertEquals(model.containsKey(f), e >= 0);
      if (e >= 0) {
        assertEquals(model.get(f), t.field(e, 0));
      }
      if (r.nextBoolean()) {
        if (e < 0) {
          e = t.add(f.high(), f.low());
        }
        t.touch(e); // no effect
        t.field(e, 0, step);
        model.put(f, step);
      } else if (e >= 0) {
        t.remove(e);
        model.remove(f);
      }
      assertEquals(model.size(), t.size());
    }
    assertEquals(-1, t.eldest());
  }

  @Test
  void growsFarPastItsExpectedSize() {
    FingerprintTable t = new FingerprintTable(1, 1);
    for (int i = 0; i < 100_000; i++) {
      t.field(t.add(i, -i), 0, i);
    }
    for (int i = 0; i < 100_000; i++) {
      assertEquals(i, t.field(t.find(i, -i), 0));
    }
    assertEquals(-1, t.find(100_000, -100_000));
    assertEquals(100_000, t.size());
  }

  @Test
  void removingAnEntryTwiceIsRefused() {
    FingerprintTable t = new FingerprintTable(0, 16);
    int e = t.add(1, 2);
    t.remove(e);
    assertThrows(IllegalStateException.class, () -> t.remove(e));
  }
}
