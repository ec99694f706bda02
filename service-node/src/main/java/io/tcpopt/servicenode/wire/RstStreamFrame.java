package io.tcpopt.servicenode.wire;

/** Aborts one stream: its TCP legs are reset. Codes are in {@link WireCodes}. */
public record RstStreamFrame(int streamId, int code, String reason) implements Frame {}
