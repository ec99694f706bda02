/**
 * The versioned data-policy store held in Hazelcast: every apply is validated completely, stored
 * as a new immutable version and activated by one atomic update of the active pointer; every
 * controller keeps a compiled copy of the active version for classifying flows locally.
 */
package io.tcpopt.controller.policy;
