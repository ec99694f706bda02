/**
 * How the CLI prints: aligned tables for people, JSON for scripts ({@code -o json}). Commands build
 * plain values (maps, lists, strings, numbers) once and hand them to whichever format was asked
 * for, so both outputs always carry the same facts.
 */
package io.tcpopt.cli.output;
