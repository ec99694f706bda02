package io.tcpopt.servicenode.session;

import java.time.Duration;

/**
 * What this node announces in its HELLO and how it keeps connections alive.
 *
 * @param maxFrameSize largest payload this node accepts (16 KiB .. 16 MiB)
 * @param initialStreamWindow credit granted to each stream the peer sends on
 * @param maxStreams concurrent streams the peer may open on one connection
 * @param keepalive PING interval; a connection with 3 unanswered PINGs is dead
 * @param handshakeTimeout how long a new connection may take to deliver its HELLO
 */
public record SessionSettings(
    String name, String site, int maxFrameSize, int initialStreamWindow, int maxStreams, Duration keepalive, Duration handshakeTimeout) {}
