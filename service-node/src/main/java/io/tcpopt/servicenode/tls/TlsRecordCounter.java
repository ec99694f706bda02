package io.tcpopt.servicenode.tls;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Counts the application-data records a TLS leg sends, by size, reading the record headers of the
 * encrypted bytes on their way to the socket (between the {@code SslHandler} and the wire). It
 * only reads: bytes pass unchanged. A record is small when its wire size (header included) fits
 * the profile's small record size.
 */
final class TlsRecordCounter extends ChannelOutboundHandlerAdapter {
  private static final int APPLICATION_DATA = 23;

  private final int smallWireSize;
  private final byte[] header = new byte[5];
  private int headerFill;
  private long bodyLeft;
  private volatile long smallRecords;
  private volatile long largeRecords;

  TlsRecordCounter(int smallWireSize) {
    this.smallWireSize = smallWireSize;
  }

  long smallRecords() {
    return smallRecords;
  }

  long largeRecords() {
    return largeRecords;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf buf) {
      scan(buf, buf.readerIndex(), buf.readableBytes());
    }
    ctx.write(msg, promise);
  }

  private void scan(ByteBuf buf, int index, int length) {
    int end = index + length;
    while (index < end) {
      if (bodyLeft > 0) {
        int n = (int) Math.min(bodyLeft, end - index);
        bodyLeft -= n;
        index += n;
        continue;
      }
      header[headerFill++] = buf.getByte(index++);
      if (headerFill == 5) {
        headerFill = 0;
        int recordLength = ((header[3] & 0xff) << 8) | (header[4] & 0xff);
        bodyLeft = recordLength;
        if ((header[0] & 0xff) == APPLICATION_DATA) {
          if (recordLength + 5 <= smallWireSize) {
            smallRecords++;
          } else {
            largeRecords++;
          }
        }
      }
    }
  }
}
