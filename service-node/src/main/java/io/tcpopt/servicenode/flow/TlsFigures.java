package io.tcpopt.servicenode.flow;

/**
 * A flow's terminated TLS leg (a {@code client-ssl} profile at the intercepting node).
 *
 * @param protocol the negotiated version ({@code TLSv1.3}), or null before the handshake completed
 * @param cipher the negotiated cipher suite, or null before the handshake completed
 * @param dynamicRecordSizing whether records start small
 * @param recordSize the plaintext bytes per record the leg sends now
 * @param smallRecords application-data records sent so far that fit the small size
 * @param largeRecords application-data records sent so far that were larger
 */
public record TlsFigures(String protocol, String cipher, boolean dynamicRecordSizing, int recordSize, long smallRecords, long largeRecords) {}
