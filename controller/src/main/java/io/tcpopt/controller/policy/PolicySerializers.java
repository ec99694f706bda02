package io.tcpopt.controller.policy;

import com.hazelcast.nio.serialization.compact.CompactReader;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.nio.serialization.compact.CompactWriter;
import java.util.List;

/**
 * Compact serializers for everything the policy store puts into or sends through Hazelcast: field
 * by field, with fixed type names, never Java serialization (see {@code ClusterMember}).
 */
final class PolicySerializers {
  private PolicySerializers() {}

  static final List<CompactSerializer<?>> ALL = List.of(new Version(), new Pointer(), new Reserve(), new Activate());

  static final class Version implements CompactSerializer<PolicyVersion> {
    @Override
    public PolicyVersion read(CompactReader in) {
      return new PolicyVersion(in.readInt64("version"), in.readString("name"), in.readString("yaml"), in.readString("appliedBy"),
          in.readInt64("appliedAtMillis"), in.readString("comment"));
    }

    @Override
    public void write(CompactWriter out, PolicyVersion v) {
      out.writeInt64("version", v.version());
      out.writeString("name", v.name());
      out.writeString("yaml", v.yaml());
      out.writeString("appliedBy", v.appliedBy());
      out.writeInt64("appliedAtMillis", v.appliedAtMillis());
      out.writeString("comment", v.comment());
    }

    @Override
    public String getTypeName() {
      return "tcpopt.PolicyVersion";
    }

    @Override
    public Class<PolicyVersion> getCompactClass() {
      return PolicyVersion.class;
    }
  }

  static final class Pointer implements CompactSerializer<PolicyPointer> {
    @Override
    public PolicyPointer read(CompactReader in) {
      return new PolicyPointer(in.readInt64("lastVersion"), in.readInt64("activeVersion"));
    }

    @Override
    public void write(CompactWriter out, PolicyPointer p) {
      out.writeInt64("lastVersion", p.lastVersion());
      out.writeInt64("activeVersion", p.activeVersion());
    }

    @Override
    public String getTypeName() {
      return "tcpopt.PolicyPointer";
    }

    @Override
    public Class<PolicyPointer> getCompactClass() {
      return PolicyPointer.class;
    }
  }

  static final class Reserve implements CompactSerializer<PointerUpdates.Reserve> {
    @Override
    public PointerUpdates.Reserve read(CompactReader in) {
      return new PointerUpdates.Reserve();
    }

    @Override
    public void write(CompactWriter out, PointerUpdates.Reserve r) {
      // no fields
    }

    @Override
    public String getTypeName() {
      return "tcpopt.PolicyReserve";
    }

    @Override
    public Class<PointerUpdates.Reserve> getCompactClass() {
      return PointerUpdates.Reserve.class;
    }
  }

  static final class Activate implements CompactSerializer<PointerUpdates.Activate> {
    @Override
    public PointerUpdates.Activate read(CompactReader in) {
      return new PointerUpdates.Activate(in.readInt64("version"), in.readInt64("expectedActive"));
    }

    @Override
    public void write(CompactWriter out, PointerUpdates.Activate a) {
      out.writeInt64("version", a.version());
      out.writeInt64("expectedActive", a.expectedActive());
    }

    @Override
    public String getTypeName() {
      return "tcpopt.PolicyActivate";
    }

    @Override
    public Class<PointerUpdates.Activate> getCompactClass() {
      return PointerUpdates.Activate.class;
    }
  }
}
