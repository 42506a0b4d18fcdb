package tradebench.spray.cluster;

/**
 * Every message that crosses members implements this: {@code cluster.conf}
 * binds it to Akka's Jackson serializer (CBOR). Java serialization is off.
 */
public interface ClusterMessage {
}
