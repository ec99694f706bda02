package io.tcpopt.servicenode.reuse;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** What a test opened, closed in reverse order after it ({@code @RegisterExtension final Closer closer = new Closer();}). */
final class Closer implements AutoCloseable, AfterEachCallback {
  private final List<AutoCloseable> open = new ArrayList<>();

  <T extends AutoCloseable> T add(T c) {
    open.add(c);
    return c;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    close();
  }

  @Override
  public void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    open.clear();
  }
}
