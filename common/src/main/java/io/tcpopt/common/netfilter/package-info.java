/**
 * Kernel packet-filter state tied to the life of this JVM. {@link
 * io.tcpopt.common.netfilter.OwnedTable} holds an nftables table through a child {@code nft -i}
 * with the table flag {@code owner}: the kernel deletes the table when that child's netlink socket
 * closes, which happens when the JVM dies in any way (its pipe to the child closes). {@link
 * io.tcpopt.common.netfilter.ExitGuard} is the second line for state nftables cannot own (policy
 * routing rules and routes): a child in its own session that runs cleanup commands when the JVM's
 * pipe to it closes without a disarm. {@link io.tcpopt.common.netfilter.Commands} runs {@code nft}
 * and {@code ip} with a bounded wait, optionally inside a network namespace.
 */
package io.tcpopt.common.netfilter;
