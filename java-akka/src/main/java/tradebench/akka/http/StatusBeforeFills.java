package tradebench.akka.http;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import tradebench.db.Database;
import tradebench.engine.BadRequest;
import tradebench.engine.Fill;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderViews;
import tradebench.http.ApiServlet;
import tradebench.model.Order;

/**
 * engine-model's {@link ApiServlet} for everything, except that
 * {@code GET /orders/{id}} reads the order's status <em>before</em> its fills.
 *
 * <p>Temporary. The shared servlet queries the fills first and reads the
 * status afterwards, so when the engine's write commits in between, the
 * answer says {@code "filled"} with the new rows missing ("remaining": 3,
 * "fills": []); {@code loadclient verify} caught it on a loaded machine.
 * Read first, a "filled" status means its rows were committed before the
 * query began, so the query sees them. Once {@code ApiServlet} snapshots the
 * status before {@code db.fills(id)}, this class goes away.
 */
public final class StatusBeforeFills extends HttpServlet {
    private final transient ApiServlet api;
    private final transient OrderGateway gateway;
    private final transient Database db;

    public StatusBeforeFills(ApiServlet api, OrderGateway gateway, Database db) {
        this.api = api;
        this.gateway = gateway;
        this.db = db;
    }

    @Override
    public void init(ServletConfig config) throws ServletException {
        super.init(config);
        api.init(config);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        String path = req.getRequestURI();
        if (!path.startsWith("/orders/") || !(req.getMethod().equals("GET") || req.getMethod().equals("HEAD"))) {
            api.service(req, resp);
            return;
        }
        long id;
        try {
            id = OrderViews.parseId(path.substring("/orders/".length()));
        } catch (BadRequest e) {
            api.service(req, resp); // the shared 400
            return;
        }
        Order known = gateway.registry().find(id);
        Order asNow = null;
        if (known != null) { // the status as it is now, before the query
            asNow = known.fresh();
            asNow.status(known.status());
        }
        List<Fill> fills;
        try {
            fills = db.fills(id);
        } catch (SQLException e) {
            api.service(req, resp); // the shared 503 (or an answer, if the database is back)
            return;
        }
        String body = OrderViews.json(id, asNow, gateway.ids().issued(id), fills);
        if (body == null) send(resp, 404, OrderViews.notFound(id));
        else send(resp, 200, body);
    }

    private static void send(HttpServletResponse resp, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
