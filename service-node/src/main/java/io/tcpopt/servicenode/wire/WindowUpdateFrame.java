package io.tcpopt.servicenode.wire;

/** Returns {@code increment} bytes of credit for one stream. */
public record WindowUpdateFrame(int streamId, int increment) implements Frame {}
