/**
 * Linux socket tuning for the inter-node (WAN) connections: congestion control set per socket and
 * read back, buffers sized to the bandwidth-delay product, a pacing cap, TCP_INFO for session
 * status, and checks of the host sysctls a WAN node depends on. Everything degrades to a warning on
 * NIO or on a kernel that lacks a feature; nothing here makes a connection fail.
 */
package io.tcpopt.common.net;
