package io.tcpopt.common.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Counts the exceptions of given classes that this JVM creates while it runs, caught or not, through
 * a JFR recording of {@code jdk.JavaExceptionThrow} (recorded where a throwable is constructed).
 * For tests of paths that must not make one: an exception caught inside Netty leaves no other trace.
 */
public final class ExceptionsCreated implements AutoCloseable {
  private final Set<String> classNames;
  private final Recording recording = new Recording();

  private ExceptionsCreated(Set<String> classNames) {
    this.classNames = classNames;
    recording.enable("jdk.JavaExceptionThrow");
    recording.setToDisk(true);
    recording.start();
  }

  /** Starts counting exceptions of exactly these classes (fully qualified names). */
  public static ExceptionsCreated of(String... classNames) {
    return new ExceptionsCreated(Set.of(classNames));
  }

  /** Stops the recording and returns how many exceptions of the classes it saw created. */
  public long stopAndCount() throws IOException {
    recording.stop();
    Path file = Files.createTempFile("exceptions-", ".jfr");
    try {
      recording.dump(file);
      long n = 0;
      for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
        RecordedClass thrown = e.getClass("thrownClass");
        if (thrown != null && classNames.contains(thrown.getName())) {
          n++;
        }
      }
      return n;
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Override
  public void close() {
    recording.close();
  }
}
