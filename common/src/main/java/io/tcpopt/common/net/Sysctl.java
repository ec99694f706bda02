package io.tcpopt.common.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Reads a kernel setting from a /proc/sys tree. A numeric setting's file must be read in one read
 * from its start: the kernel answers a read at a later offset with end of file. {@code
 * Files.readString} and {@code readAllBytes} first read as many bytes as the file's size says,
 * and /proc says 0, so they returned the first character only ("3" for tcp_min_rtt_wlen's 300,
 * "4" for tcp_rmem's "4096 131072 6291456"; Java 17 and 25). A buffered reader asks for a whole
 * buffer at once.
 */
final class Sysctl {
  /** The running kernel's settings, for the network namespace of the process. */
  static final Path PROC_SYS = Path.of("/proc/sys");

  private Sysctl() {}

  /** The setting {@code name} (e.g. {@code net.ipv4.tcp_rmem}) under {@code procSys}, trimmed; empty if unreadable. */
  static Optional<String> read(Path procSys, String name) {
    try (BufferedReader in = Files.newBufferedReader(file(procSys, name))) {
      return Optional.of(in.lines().collect(Collectors.joining("\n")).trim());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static Path file(Path procSys, String name) {
    return procSys.resolve(name.replace('.', '/'));
  }
}
