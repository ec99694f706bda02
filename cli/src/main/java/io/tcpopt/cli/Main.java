package io.tcpopt.cli;

/** Entry point of the {@code tcpopt} launcher. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.err.println("tcpopt: not built yet");
    System.exit(2);
  }
}
