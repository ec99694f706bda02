/**
 * Compression of literal bytes: the LZ4 and zstd codecs of the segment format and the per-stream
 * {@link io.tcpopt.reduction.codec.CompressionGuard} that stops trying on data that does not
 * compress.
 */
package io.tcpopt.reduction.codec;
