/**
 * Human-readable units (sizes, bit rates, round-trip times, durations) shared by the CLI's tables
 * and the controller's web console, so both print a figure the same way.
 */
package io.tcpopt.common.units;
