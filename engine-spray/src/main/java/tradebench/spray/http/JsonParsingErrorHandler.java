package tradebench.spray.http;

import akka.event.LoggingAdapter;
import akka.http.ParsingErrorHandler;
import akka.http.javadsl.model.HttpResponse;
import akka.http.scaladsl.model.ErrorInfo;
import akka.http.scaladsl.model.StatusCode;
import akka.http.scaladsl.settings.ServerSettings;
import tradebench.json.JsonText;

/**
 * Requests too malformed to reach the routes (a bad request line, an illegal
 * URI, an oversized header) are answered by Akka HTTP itself; this makes that
 * answer JSON like every other one (application.conf names it).
 */
public final class JsonParsingErrorHandler extends ParsingErrorHandler {
    @Override
    public HttpResponse handle(StatusCode status, ErrorInfo info, LoggingAdapter log, ServerSettings settings) {
        String summary = info.summary().isEmpty() ? status.reason() : info.summary();
        // Bad input is a 4xx (contract section 3), whatever Akka would say: a method outside the
        // registry (501 in Akka; RegisteredMethods lets the registered ones reach the routes, which
        // answer 405 with Allow) is a malformed request, as in node-engine; anything else unreadable too.
        int code = status.intValue();
        if (code >= 500) code = 400;
        return ApiRoutes.json(code, JsonText.error(summary));
    }
}
