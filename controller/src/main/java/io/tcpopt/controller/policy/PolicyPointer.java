package io.tcpopt.controller.policy;

import java.io.Serializable;

/**
 * The single entry that says which version is active. Changing it is the atomic activation step;
 * {@code lastVersion} hands out version numbers.
 */
record PolicyPointer(long lastVersion, long activeVersion) implements Serializable {
  static final PolicyPointer EMPTY = new PolicyPointer(0, 0);
}
