package tradebench.akka;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import tradebench.testing.EndOfLifeFenceContract;

/**
 * The fence around the known vulnerabilities of the end-of-life Akka 2.6
 * (EndOfLifeFenceContract), in AkkaService: besides the shared fences, Akka
 * HTTP, whose file uploads (CVE-2023-33251) and HTTP/2 (CVE-2023-44487) are
 * affected, is not even on the classpath; the HTTP server it has (Tomcat)
 * speaks no HTTP/2.
 */
class EndOfLifeFenceIT extends EndOfLifeFenceContract<AkkaService> {
    EndOfLifeFenceIT() {
        super("java-akka", AkkaService::start, AkkaService::port,
                (service, path) -> service.system().settings().config().getConfig("akka").getString(path), AkkaService::drain);
    }

    @Test
    void akkaHttpIsNotOnTheClasspath() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("akka.http.scaladsl.Http"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("akka.http.javadsl.server.directives.FileUploadDirectives"));
    }
}
