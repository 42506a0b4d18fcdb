package tradebench.spray;

import akka.actor.ActorSystem;
import akka.http.javadsl.Http;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpEntities;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import com.typesafe.config.ConfigFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import tradebench.engine.Config;

/**
 * Akka HTTP's floor: the variant's actor system and server settings
 * ({@link SprayService#akkaSettings}, application.conf) bound the way the
 * variant binds its handler, with a handler that gives every request the 202
 * answer of an accepted order and does nothing else: no parameters read, no
 * actor, no database. The harness's calibration measures what a request costs
 * it in CPU; java-spray-async's cost per order minus this is what its own code
 * (validation, the engine actors and the sales' storage) adds.
 *
 * <p>{@code java -cp java-spray-async/target/java-spray-async.jar tradebench.spray.TrivialAkkaHttp PORT}
 * (DISPATCHER_THREADS from the environment, as the variant reads it)
 */
public final class TrivialAkkaHttp {
    private static final HttpResponse ANSWER = HttpResponse.create().withStatus(202)
            .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, "{\"id\": 1, \"side\": \"buy\", \"status\": \"accepted\"}"));

    public static void main(String[] args) throws Exception {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("PORT", args.length > 0 ? args[0] : "3996");
        Config config = Config.from(env);
        ActorSystem system = ActorSystem.create(SprayService.SYSTEM, SprayService.akkaSettings(config, ConfigFactory.empty()));
        akka.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> handler =
                req -> CompletableFuture.completedFuture(ANSWER);
        Http.get(system).newServerAt("127.0.0.1", config.port()).bind(handler).toCompletableFuture().get(30, TimeUnit.SECONDS);
        System.out.println("trivial Akka HTTP server on 127.0.0.1:" + config.port());
    }
}
