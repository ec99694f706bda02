package io.tcpopt.controller.policy;

/**
 * The single entry that says which version is active. Changing it is the atomic activation step;
 * {@code lastVersion} hands out version numbers. Stored as Compact data ({@link PolicySerializers}).
 */
record PolicyPointer(long lastVersion, long activeVersion) {
  static final PolicyPointer EMPTY = new PolicyPointer(0, 0);
}
