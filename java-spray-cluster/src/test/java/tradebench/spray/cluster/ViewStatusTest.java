package tradebench.spray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import akka.serialization.Serialization;
import akka.serialization.SerializationExtension;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tradebench.engine.Fill;
import tradebench.model.Order;
import tradebench.model.OrderStatus;
import tradebench.model.Side;
import tradebench.wire.OrderViews;

/**
 * The issuer's answer to a view travels between members as Jackson CBOR (cluster.conf) and
 * makes, with the fills the asking member reads, the view the issuer would have made.
 */
class ViewStatusTest {
    private static ActorSystem system;

    @BeforeAll
    static void start() {
        system = ActorSystem.create("view-status", ConfigFactory.parseString("akka.actor.provider = local")
                .withFallback(ConfigFactory.parseResources("cluster.conf")).withFallback(ConfigFactory.load()).resolve());
    }

    @AfterAll
    static void stop() {
        system.terminate();
    }

    private static ClusterProtocol.ViewStatus overTheWire(ClusterProtocol.ViewStatus s) {
        Serialization ser = SerializationExtension.get(system);
        byte[] bytes = ser.serialize(s).get();
        assertFalse(ser.findSerializerFor(s).getClass().getName().contains("JavaSerializer"));
        return ser.deserialize(bytes, ClusterProtocol.ViewStatus.class).get();
    }

    @Test
    void aKnownOrderMakesTheSameViewOnTheAskingMember() {
        Order o = new Order(33, Side.SELL, "s1", 7, 5, 1050, 1234);
        OrderViews.Lookup atIssuer = new OrderViews.Lookup(33, o, OrderStatus.OPEN, true);
        List<Fill> fills = List.of(new Fill(1, "b9", "s1", "7", 1050, 3, 77, 33, 99));

        ClusterProtocol.ViewStatus received = overTheWire(ClusterProtocol.ViewStatus.of(atIssuer, 4));
        assertEquals(atIssuer.answer(fills), received.lookup().answer(fills));
        assertEquals(atIssuer.answer(List.of()), received.lookup().answer(List.of()));
        assertFalse(received.unknownToIssuer());
    }

    @Test
    void anOrderTheIssuerNeverSawIsUnknownToIt() {
        ClusterProtocol.ViewStatus received = overTheWire(
                ClusterProtocol.ViewStatus.of(new OrderViews.Lookup(48, null, null, false), 4));
        assertTrue(received.unknownToIssuer());
        assertEquals(404, received.lookup().answer(List.of()).status());
        ClusterProtocol.ViewStatus issued = overTheWire(
                ClusterProtocol.ViewStatus.of(new OrderViews.Lookup(48, null, null, true), 4));
        assertFalse(issued.unknownToIssuer(), "an id in the issued range is known to be the issuer's");
    }
}
