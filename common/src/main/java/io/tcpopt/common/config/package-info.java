/** Reading YAML configuration with precise, one-line errors that name the field path. */
package io.tcpopt.common.config;
