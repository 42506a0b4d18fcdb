package tradebench.spray.http;

import akka.actor.ActorSystem;
import akka.http.javadsl.model.HttpMethod;
import akka.http.javadsl.model.HttpMethods;
import akka.http.javadsl.model.RequestEntityAcceptances;
import akka.http.javadsl.settings.ServerSettings;
import java.util.List;

/**
 * The server's settings with every method of the IANA HTTP method registry
 * known to Akka HTTP's parser. Akka HTTP knows only the methods of RFC 9110 and
 * PATCH; any other (QUERY, PROPFIND, ...) was refused by the parser before the
 * routes saw it, without the {@code Allow} header RFC 9110 requires of a 405.
 * Known, such a method reaches the routes, which answer 405 with the path's
 * {@code Allow} (or 404 for an unknown path). A token outside the registry is
 * not a method this service could ever serve: {@link JsonParsingErrorHandler}
 * answers it 400, as node-engine's HTTP parser does.
 */
public final class RegisteredMethods {
    /** The registry's methods beside RFC 9110's and PATCH (PRI is HTTP/2's connection preface, not a method). */
    static final List<String> NAMES = List.of("ACL", "BASELINE-CONTROL", "BIND", "CHECKIN", "CHECKOUT", "COPY", "LABEL",
            "LINK", "LOCK", "MERGE", "MKACTIVITY", "MKCALENDAR", "MKCOL", "MKREDIRECTREF", "MKWORKSPACE", "MOVE",
            "ORDERPATCH", "PROPFIND", "PROPPATCH", "QUERY", "REBIND", "REPORT", "SEARCH", "UNBIND", "UNCHECKOUT",
            "UNLINK", "UNLOCK", "UPDATE", "UPDATEREDIRECTREF", "VERSION-CONTROL");

    private RegisteredMethods() {
    }

    public static ServerSettings serverSettings(ActorSystem system) {
        ServerSettings settings = ServerSettings.create(system);
        HttpMethod[] methods = NAMES.stream()
                .map(name -> HttpMethods.custom(name, false, false, RequestEntityAcceptances.Tolerated))
                .toArray(HttpMethod[]::new);
        return settings.withParserSettings(settings.getParserSettings().withCustomMethods(methods));
    }
}
