package tradebench.http;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import tradebench.db.Database;
import tradebench.db.OrderReads;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRequest;
import tradebench.model.Side;
import tradebench.wire.Answers;
import tradebench.wire.BadRequest;
import tradebench.wire.FaultInjection;
import tradebench.json.JsonText;
import tradebench.wire.OrderParams;
import tradebench.wire.OrderViews;

/**
 * The HTTP API of contract section 3 for the servlet variants (java-threads,
 * java-akka): everything here is shared, only the {@link OrderGateway}'s
 * engine door differs. An order is validated, handed over and answered 202 at
 * once; it never waits for its trade.
 */
public final class ApiServlet extends HttpServlet {
    /** HttpServlet is Serializable (for containers that persist sessions); this one never is: its fields are transient. */
    @Serial
    private static final long serialVersionUID = 1L;
    private final transient OrderGateway gateway;
    private final transient Database db;
    private final transient FaultInjection.EngineCrasher crasher; // null unless FAULTS=on
    private final transient OrderReads reads;
    private final transient Views.Door views;

    public ApiServlet(OrderGateway gateway, Database db) {
        this(gateway, db, null);
    }

    /** With a crasher, {@code POST /faults/crash-engine?engine=N} works when FAULTS=on (the reliability suite). */
    public ApiServlet(OrderGateway gateway, Database db, FaultInjection.EngineCrasher crasher) {
        this.gateway = gateway;
        this.db = db;
        this.crasher = FaultInjection.ifEnabled(crasher, gateway.config());
        Views mode = Views.of(gateway.config()); // a bad VIEWS stops us before a pool is opened
        this.reads = new OrderReads(gateway.config());
        this.views = mode.open(reads);
    }

    /** The order view's read path closes with the servlet (Tomcat's stop). */
    @Override
    public void destroy() {
        views.close();
        reads.close();
        super.destroy();
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getRequestURI();
        String method = req.getMethod();
        switch (path) {
            case "/buy" -> order(Side.BUY, method, req, resp);
            case "/sell" -> order(Side.SELL, method, req, resp);
            case "/stats" -> {
                if (onlyGet(method, path, resp)) send(resp, 200, Answers.stats(gateway.stats()));
            }
            case "/health" -> {
                if (onlyGet(method, path, resp)) health(resp);
            }
            case FaultInjection.PATH -> {
                if (crasher == null) send(resp, 404, Answers.notFound(path));
                else crash(method, req, resp);
            }
            default -> {
                if (path.startsWith("/orders/")) {
                    if (onlyGet(method, path, resp)) order(path.substring("/orders/".length()), req, resp);
                } else {
                    send(resp, 404, Answers.notFound(path));
                }
            }
        }
    }

    private void order(Side side, String method, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!method.equals("GET") && !method.equals("POST")) {
            resp.setHeader("Allow", "GET, POST");
            send(resp, 405, Answers.methodNotAllowed(method, req.getRequestURI()));
            return;
        }
        OrderRequest request;
        try {
            request = OrderParams.parse(side, parameters(method, req), gateway.config().products());
        } catch (BadRequest e) {
            gateway.rejected();
            send(resp, e.status(), JsonText.error(e.getMessage()));
            return;
        }
        switch (gateway.submit(request)) {
            case OrderGateway.Accepted a -> send(resp, 202, Answers.accepted(a));
            case OrderGateway.Refused r -> {
                resp.setHeader("Retry-After", "1");
                send(resp, 503, Answers.refused(r));
            }
        }
    }

    /**
     * The order's parameters. Tomcat's parameter parsing (every name and value decoded through
     * a charset decoder) was a fifth of a request thread's time in java-threads' profile; a query
     * string that needs no decoding, on a request without a form body, is split by
     * {@link OrderParams#plainQuery} instead, with the same result. Anything else is Tomcat's.
     */
    private static Function<String, List<String>> parameters(String method, HttpServletRequest req) {
        if (!(method.equals("POST") && isForm(req.getContentType()))) {
            Function<String, List<String>> plain = OrderParams.plainQuery(req.getQueryString());
            if (plain != null) return plain;
        }
        return name -> values(req, name);
    }

    /** A body Tomcat would read parameters from (checked loosely: a false positive only costs speed). */
    private static boolean isForm(String contentType) {
        return contentType != null && contentType.toLowerCase(java.util.Locale.ROOT).contains("form");
    }

    private static List<String> values(HttpServletRequest req, String name) {
        String[] v = req.getParameterValues(name);
        return v == null ? null : Arrays.asList(v);
    }

    private void order(String idText, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long deadline = reads.deadlineFromNow();
        long id;
        try {
            id = OrderViews.parseId(idText);
        } catch (BadRequest e) {
            send(resp, 400, JsonText.error(e.getMessage()));
            return;
        }
        OrderViews.Lookup lookup = OrderViews.lookup(gateway, id); // before the fills: see OrderViews
        views.view(lookup, deadline, req, resp);
    }

    private void crash(String method, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!method.equals("POST")) {
            resp.setHeader("Allow", "POST");
            send(resp, 405, Answers.methodNotAllowed(method, FaultInjection.PATH));
            return;
        }
        try {
            int engine = FaultInjection.engine(req.getParameter("engine"), gateway.config());
            crasher.crash(engine);
            send(resp, 202, FaultInjection.accepted(engine));
        } catch (BadRequest e) {
            send(resp, 400, JsonText.error(e.getMessage()));
        }
    }

    private void health(HttpServletResponse resp) throws IOException {
        if (db.healthy()) send(resp, 200, Answers.HEALTH_UP);
        else send(resp, 503, Answers.HEALTH_DOWN);
    }

    private static boolean onlyGet(String method, String path, HttpServletResponse resp) throws IOException {
        if (method.equals("GET") || method.equals("HEAD")) return true;
        resp.setHeader("Allow", "GET");
        send(resp, 405, Answers.methodNotAllowed(method, path));
        return false;
    }

    /** A view's answer; a 503 says when to retry. */
    static void send(HttpServletResponse resp, OrderViews.Answer answer) throws IOException {
        if (answer.status() == 503) resp.setHeader("Retry-After", "1");
        send(resp, answer.status(), answer.body());
    }

    static void send(HttpServletResponse resp, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
