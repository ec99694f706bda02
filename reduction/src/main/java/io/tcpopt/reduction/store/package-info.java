/**
 * The chunk cache of a node ({@link io.tcpopt.reduction.store.ChunkStore}): chunks by {@link
 * io.tcpopt.reduction.store.Fingerprint}, a bounded LRU memory tier and an optional bounded disk
 * tier that survives restarts and discards whatever fails its checks, and the cache epoch that
 * peers' knowledge of the cache is tied to.
 */
package io.tcpopt.reduction.store;
