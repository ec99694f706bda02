/**
 * TCP profiles: named sets of socket and proxy settings with F5-style parent inheritance. The
 * built-ins ({@code tcp}, {@code tcp-legacy}, {@code tcp-lan-optimized}, {@code tcp-wan-optimized})
 * live in {@link io.tcpopt.common.profile.TcpProfiles}; a policy may define its own profiles that
 * name a parent and override some fields. A data-policy {@code optimize} action picks one resolved
 * profile per leg ({@link io.tcpopt.common.profile.LegProfiles}).
 */
package io.tcpopt.common.profile;
