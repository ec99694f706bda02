package io.tcpopt.servicenode;

import io.tcpopt.servicenode.session.WanSockets;

/** WAN socket tuning for this node's link settings. */
final class WanTuning {
  private WanTuning() {}

  static WanSockets.Tuning forConfig(ServiceNodeConfig.Wan wan) {
    return WanSockets.NONE;
  }
}
