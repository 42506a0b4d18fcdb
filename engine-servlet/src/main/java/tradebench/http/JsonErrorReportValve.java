package tradebench.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import tradebench.json.JsonText;

/**
 * Errors Tomcat answers itself (a malformed URI, a servlet that threw) get a
 * JSON body like every other answer, never Tomcat's HTML page.
 */
public final class JsonErrorReportValve extends ErrorReportValve {
    @Override
    protected void report(Request request, Response response, Throwable t) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) return;
        String message = status >= 500 ? "internal error" : status == 404 ? "not found" : "bad request";
        try {
            byte[] body = JsonText.error(message).getBytes(StandardCharsets.UTF_8);
            response.setContentType("application/json");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
            response.finishResponse();
        } catch (IOException | IllegalStateException e) {
            // the client is gone; nothing to tell it
        }
    }
}
