/**
 * Content-defined chunking for deduplication: {@link io.tcpopt.reduction.chunk.GearChunker} cuts a
 * stream into chunks whose boundaries depend on content only, so that data seen before is found
 * again as the same chunks wherever it starts and however it is read.
 */
package io.tcpopt.reduction.chunk;
