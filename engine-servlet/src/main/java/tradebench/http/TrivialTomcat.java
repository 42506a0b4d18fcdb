package tradebench.http;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import tradebench.engine.Config;

/**
 * Tomcat's floor: the variants' Tomcat ({@link TomcatServer}, the same connector
 * and settings) with a servlet that gives every request the 202 answer of an
 * accepted order and does nothing else: no parameters read, no engine, no
 * database. The harness's calibration measures what a request costs it in
 * CPU; a Tomcat variant's cost per order minus this is what its own code (the
 * order's validation, the engine and the sales' storage) adds.
 *
 * <p>{@code java -cp java-threads/target/java-threads.jar tradebench.http.TrivialTomcat PORT}
 * (HTTP_THREADS, MAX_CONNECTIONS and THREADS from the environment, as the variants read them)
 */
public final class TrivialTomcat {
    private static final byte[] BODY = "{\"id\": 1, \"side\": \"buy\", \"status\": \"accepted\"}"
            .getBytes(StandardCharsets.UTF_8);

    /** The answer only: what ApiServlet's send() does for a 202, without the order behind it. */
    static final class Answer202 extends HttpServlet {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setStatus(202);
            resp.setContentType("application/json");
            resp.setContentLength(BODY.length);
            resp.getOutputStream().write(BODY);
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("PORT", args.length > 0 ? args[0] : "3997");
        env.putIfAbsent("BIND", "127.0.0.1");
        Config config = Config.from(env);
        TomcatServer server = TomcatServer.start(config, new Answer202());
        System.out.println("trivial Tomcat on 127.0.0.1:" + server.port() + " (" + TomcatServer.describe(config) + ")");
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
        Thread.currentThread().join(); // Tomcat's threads serve; SIGTERM ends the JVM
    }
}
