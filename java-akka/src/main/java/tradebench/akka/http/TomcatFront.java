package tradebench.akka.http;

import jakarta.servlet.http.HttpServlet;
import java.io.File;
import java.nio.file.Files;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.startup.Tomcat;
import tradebench.engine.Config;
import tradebench.http.JsonErrorReportValve;

/**
 * Embedded Tomcat in front of engine-model's ApiServlet (through {@link StatusBeforeFills}), with the
 * settings of {@code tradebench.http.TomcatServer} (HTTP_THREADS 200,
 * MAX_CONNECTIONS 10,000, THREADS=virtual for virtual request threads).
 *
 * <p>Temporary: the installed {@code TomcatServer.start} adds its connector to
 * the service twice ({@code setConnector} already adds it), so Tomcat refuses
 * to start ("invalid Lifecycle transition ... in state [INITIALIZED]"). Once
 * engine-model drops the second {@code addConnector}, {@code AkkaService}
 * goes back to {@code TomcatServer} and this class goes away.
 */
public final class TomcatFront {
    private final Tomcat tomcat;

    private TomcatFront(Tomcat tomcat) {
        this.tomcat = tomcat;
    }

    public static TomcatFront start(Config config, HttpServlet servlet) throws Exception {
        Tomcat tomcat = new Tomcat();
        File base = Files.createTempDirectory("tradebench-tomcat").toFile();
        base.deleteOnExit();
        tomcat.setBaseDir(base.getAbsolutePath());

        Connector connector = new Connector("org.apache.coyote.http11.Http11NioProtocol");
        connector.setPort(config.port());
        connector.setProperty("address", config.extra("BIND", "0.0.0.0"));
        connector.setProperty("maxThreads", Integer.toString(config.extraInt("HTTP_THREADS", 200, 1, 10_000)));
        connector.setProperty("maxConnections", Integer.toString(config.extraInt("MAX_CONNECTIONS", 10_000, 1, 1_000_000)));
        connector.setProperty("acceptCount", "1000");
        connector.setProperty("maxKeepAliveRequests", "-1");
        connector.setProperty("connectionTimeout", "20000");
        connector.setProperty("maxParameterCount", "64");
        if ("virtual".equals(config.extra("THREADS", "platform"))) connector.setProperty("useVirtualThreads", "true");
        tomcat.setConnector(connector); // adds it to the service: once is enough

        ((StandardHost) tomcat.getHost()).setErrorReportValveClass(JsonErrorReportValve.class.getName());
        Context ctx = tomcat.addContext("", base.getAbsolutePath());
        Tomcat.addServlet(ctx, "api", servlet);
        ctx.addServletMappingDecoded("/", "api");
        tomcat.start();
        return new TomcatFront(tomcat);
    }

    public int port() {
        return tomcat.getConnector().getLocalPort();
    }

    public void stop() {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            System.err.println("stopping Tomcat: " + e.getMessage());
        }
    }
}
