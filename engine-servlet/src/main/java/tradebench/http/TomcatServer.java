package tradebench.http;

import java.io.File;
import java.nio.file.Files;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.startup.Tomcat;
import tradebench.engine.Config;
import tradebench.engine.ReadPath;
import tradebench.engine.ThreadKind;

/**
 * Embedded Tomcat 10.1 with the NIO connector in front of {@link ApiServlet}.
 * Defaults are the original experiment's: 200 request threads, 10,000
 * connections. Settings (environment): HTTP_THREADS, MAX_CONNECTIONS, and
 * THREADS=virtual for virtual request threads ({@link ThreadKind}); the order view's, VIEWS
 * ({@link Views}) and the read path's (READ_*, VIEW_LIMIT), are the servlet's.
 */
public final class TomcatServer {
    private final Tomcat tomcat;

    private TomcatServer(Tomcat tomcat) {
        this.tomcat = tomcat;
    }

    public static TomcatServer start(Config config, jakarta.servlet.Servlet servlet) throws Exception {
        return start(config, ThreadKind.of(config), servlet);
    }

    /** Request handlers on threads of {@code kind} (java-virtual: always virtual, whatever THREADS says). */
    public static TomcatServer start(Config config, ThreadKind kind, jakarta.servlet.Servlet servlet) throws Exception {
        Tomcat tomcat = new Tomcat();
        File base = Files.createTempDirectory("tradebench-tomcat").toFile();
        base.deleteOnExit();
        tomcat.setBaseDir(base.getAbsolutePath());

        Connector connector = new Connector("org.apache.coyote.http11.Http11NioProtocol");
        connector.setPort(config.port());
        connector.setProperty("address", config.extra("BIND", "0.0.0.0"));
        connector.setProperty("maxThreads", Integer.toString(httpThreads(config)));
        connector.setProperty("maxConnections", Integer.toString(maxConnections(config)));
        connector.setProperty("acceptCount", "1000");
        // A load client keeps its connections: no forced reconnect every 100 requests.
        connector.setProperty("maxKeepAliveRequests", "-1");
        connector.setProperty("connectionTimeout", "20000");
        connector.setProperty("maxParameterCount", "64");
        if (kind == ThreadKind.VIRTUAL) {
            connector.setProperty("useVirtualThreads", "true");
        }
        tomcat.setConnector(connector); // also adds it to the service

        StandardHost host = (StandardHost) tomcat.getHost();
        host.setErrorReportValveClass(JsonErrorReportValve.class.getName());
        Context ctx = tomcat.addContext("", base.getAbsolutePath());
        // VIEWS=async and resilience4j leave the request thread; asynchronous support costs the others nothing
        Tomcat.addServlet(ctx, "api", servlet).setAsyncSupported(true);
        ctx.addServletMapping("/", "api"); // Tomcat 10.1.5x: the name of addServletMappingDecoded again
        tomcat.start();
        return new TomcatServer(tomcat);
    }

    static int httpThreads(Config config) {
        return config.extraInt("HTTP_THREADS", 200, 1, 10_000);
    }

    static int maxConnections(Config config) {
        return config.extraInt("MAX_CONNECTIONS", 10_000, 1, 1_000_000);
    }

    /** The HTTP settings, for a variant's start-up line. */
    public static String describe(Config config) {
        return "httpThreads=" + httpThreads(config) + " maxConnections=" + maxConnections(config)
                + " views=" + Views.of(config).wire() + " " + ReadPath.of(config).describe();
    }

    public int port() {
        return tomcat.getConnector().getLocalPort();
    }

    /** Stop taking connections and requests (the first step of a drain). */
    public void stop() {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            System.err.println("stopping Tomcat: " + e.getMessage());
        }
    }
}
