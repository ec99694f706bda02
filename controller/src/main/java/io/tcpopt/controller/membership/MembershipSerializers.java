package io.tcpopt.controller.membership;

import com.hazelcast.nio.serialization.compact.CompactReader;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.nio.serialization.FieldKind;
import com.hazelcast.nio.serialization.compact.CompactWriter;
import java.util.List;

/** Compact serializers for the membership map's records and its heartbeat entry processor. */
final class MembershipSerializers {
  private MembershipSerializers() {}

  static final List<CompactSerializer<?>> ALL = List.of(new Record(), new Heartbeat());

  private static boolean optionalBoolean(CompactReader in, String field) {
    return in.getFieldKind(field) == FieldKind.BOOLEAN && in.readBoolean(field);
  }

  static final class Record implements CompactSerializer<NodeRecord> {
    @Override
    public NodeRecord read(CompactReader in) {
      return new NodeRecord(
          in.readString("name"), in.readString("site"), in.readString("group"), NodeRole.valueOf(in.readString("role")),
          in.readString("address"), in.readString("handoffAddress"), in.readInt64("flowCapacity"), in.readInt64("activeFlows"),
          in.readInt64("policyVersion"), in.readInt64("registeredAtMillis"), in.readInt64("lastHeartbeatMillis"),
          in.readString("controller"), optionalBoolean(in, "draining"), drainOrder(in));
    }

    /** Records written before drain existed lack its fields. */
    private static DrainOrder drainOrder(CompactReader in) {
      return in.getFieldKind("drainOrder") == FieldKind.STRING ? DrainOrder.valueOf(in.readString("drainOrder")) : DrainOrder.NONE;
    }

    @Override
    public void write(CompactWriter out, NodeRecord r) {
      out.writeString("name", r.name());
      out.writeString("site", r.site());
      out.writeString("group", r.group());
      out.writeString("role", r.role().name());
      out.writeString("address", r.address());
      out.writeString("handoffAddress", r.handoffAddress());
      out.writeInt64("flowCapacity", r.flowCapacity());
      out.writeInt64("activeFlows", r.activeFlows());
      out.writeInt64("policyVersion", r.policyVersion());
      out.writeInt64("registeredAtMillis", r.registeredAtMillis());
      out.writeInt64("lastHeartbeatMillis", r.lastHeartbeatMillis());
      out.writeString("controller", r.controller());
      out.writeBoolean("draining", r.draining());
      out.writeString("drainOrder", r.drainOrder().name());
    }

    @Override
    public String getTypeName() {
      return "tcpopt.NodeRecord";
    }

    @Override
    public Class<NodeRecord> getCompactClass() {
      return NodeRecord.class;
    }
  }

  static final class Heartbeat implements CompactSerializer<NodeRegistry.Beat> {
    @Override
    public NodeRegistry.Beat read(CompactReader in) {
      return new NodeRegistry.Beat(in.readInt64("activeFlows"), in.readInt64("policyVersion"), in.readInt64("atMillis"),
          in.readString("controller"), optionalBoolean(in, "draining"));
    }

    @Override
    public void write(CompactWriter out, NodeRegistry.Beat b) {
      out.writeBoolean("draining", b.draining);
      out.writeInt64("activeFlows", b.activeFlows);
      out.writeInt64("policyVersion", b.policyVersion);
      out.writeInt64("atMillis", b.atMillis);
      out.writeString("controller", b.controller);
    }

    @Override
    public String getTypeName() {
      return "tcpopt.NodeHeartbeat";
    }

    @Override
    public Class<NodeRegistry.Beat> getCompactClass() {
      return NodeRegistry.Beat.class;
    }
  }
}
