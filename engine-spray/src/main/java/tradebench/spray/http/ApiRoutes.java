package tradebench.spray.http;

import akka.actor.ClassicActorSystemProvider;
import akka.http.javadsl.HandlerProvider;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpEntities;
import akka.http.javadsl.model.HttpEntity;
import akka.http.javadsl.model.HttpMethod;
import akka.http.javadsl.model.HttpMethods;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.MediaTypes;
import akka.http.javadsl.model.Query;
import akka.http.javadsl.model.StatusCodes;
import akka.http.javadsl.model.headers.Allow;
import akka.http.javadsl.model.headers.RetryAfter;
import akka.http.javadsl.server.AllDirectives;
import akka.http.javadsl.server.ExceptionHandler;
import akka.http.javadsl.server.RejectionHandler;
import akka.http.javadsl.server.Route;
import akka.http.scaladsl.model.EntityStreamException;
import akka.http.scaladsl.model.EntityStreamSizeException;
import akka.http.scaladsl.model.IllegalUriException;
import akka.stream.Materializer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRequest;
import tradebench.model.Side;
import tradebench.engine.ReadPath;
import tradebench.spray.db.AsyncDatabase;
import tradebench.spray.db.OrderReads;
import tradebench.wire.Answers;
import tradebench.wire.BadRequest;
import tradebench.wire.FaultInjection;
import tradebench.json.JsonText;
import tradebench.wire.OrderParams;
import tradebench.wire.OrderViews;

import static akka.http.javadsl.server.PathMatchers.remaining;
import static akka.http.javadsl.server.PathMatchers.segment;

/**
 * The HTTP API of contract section 3 as Akka HTTP routes: the same paths, statuses
 * and bodies as engine-servlet's ApiServlet, from the same wire format
 * (engine-wire). An order is
 * validated, handed to its engine with a fire-and-forget tell and answered 202
 * at once; {@code /orders/{id}} (through the view's read path, {@link OrderReads}) and
 * {@code /health} ask the database without blocking (the answer completes on the driver's
 * callback). Every answer,
 * Akka HTTP's own rejections included, is JSON.
 *
 * <p>The server binds {@link #handler}: an order without a form body (the
 * load client's, and the 2014 clients') is answered by {@link #submit}
 * directly, without the routing DSL's per-request directives, futures and
 * rejection handling; every other request goes through {@link #route()}.
 * Both give the same answers.
 */
public final class ApiRoutes extends AllDirectives implements HandlerProvider {
    private static final long FORM_WAIT_MS = 5_000;

    private final OrderGateway gateway;
    private final AsyncDatabase db;
    private final OrderReads reads;
    private final FaultInjection.EngineCrasher crasher; // null unless FAULTS=on

    public ApiRoutes(OrderGateway gateway, AsyncDatabase db) {
        this(gateway, db, null);
    }

    /** With a crasher, {@code POST /faults/crash-engine?engine=N} works when FAULTS=on (the reliability suite). */
    public ApiRoutes(OrderGateway gateway, AsyncDatabase db, FaultInjection.EngineCrasher crasher) {
        this.gateway = gateway;
        this.db = db;
        this.reads = db.reads();
        this.crasher = FaultInjection.ifEnabled(crasher, gateway.config());
    }

    /** The whole API, sealed: unknown paths, malformed input and exceptions get their JSON answer here. */
    public Route route() {
        return concat(
                path("buy", () -> order(Side.BUY)),
                path("sell", () -> order(Side.SELL)),
                path("stats", () -> onlyGet(() -> complete(json(200, Answers.stats(gateway.stats()))))),
                path("health", () -> onlyGet(this::health)),
                pathPrefix("orders", () -> path(remaining(), idText -> onlyGet(() -> orderView(idText)))),
                path(segment("faults").slash("crash-engine"), this::crash))
                .seal(rejections(), exceptions());
    }

    /**
     * The request handler the server binds: {@code GET /buy|/sell}, and {@code POST} without a
     * form body, straight to {@link #submit}; everything else (and any request whose
     * query string does not parse) through the sealed {@link #route()}.
     */
    @Override
    public akka.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> handler(ClassicActorSystemProvider system) {
        return handler(system, route());
    }

    /**
     * The same fast path in front of ROUTED instead of {@link #route()}: the routes of a service
     * built on this one, which answer some paths themselves and hand the rest to {@link #route()}.
     */
    public HandlerProvider around(Route routed) {
        return new HandlerProvider() {
            @Override
            public akka.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> handler(ClassicActorSystemProvider system) {
                return ApiRoutes.this.handler(system, routed);
            }
        };
    }

    private akka.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> handler(ClassicActorSystemProvider system,
                                                                                         Route route) {
        akka.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> routed = route.handler(system);
        return req -> {
            Side side = fastSide(req);
            if (side != null) {
                java.util.function.Function<String, List<String>> params;
                try {
                    params = queryParameters(req);
                } catch (RuntimeException e) { // a malformed query string: the route answers it
                    return routed.apply(req);
                }
                try {
                    return CompletableFuture.completedFuture(submit(side, params));
                } catch (RuntimeException e) { // as the route's exception handler answers it
                    System.err.println("request failed: " + e);
                    return CompletableFuture.completedFuture(json(500, JsonText.error("internal error")));
                }
            }
            return routed.apply(req);
        };
    }

    /** The side of an order {@link #handler} answers itself, or null. */
    private static Side fastSide(HttpRequest req) {
        HttpMethod m = req.method();
        if (m != HttpMethods.GET && m != HttpMethods.POST) return null;
        if (m == HttpMethods.POST && isForm(req.entity())) return null;
        String path = req.getUri().path();
        if (path.equals("/buy")) return Side.BUY;
        if (path.equals("/sell")) return Side.SELL;
        return null;
    }

    // ---- orders ----

    private Route order(Side side) {
        return extractRequest(req -> {
            HttpMethod m = req.method();
            if (m != HttpMethods.GET && m != HttpMethods.POST) {
                return complete(json(405, Answers.methodNotAllowed(m.name(), req.getUri().path()))
                        .addHeader(Allow.create(HttpMethods.GET, HttpMethods.POST)));
            }
            if (m == HttpMethods.POST && isForm(req.entity())) {
                // a form body may still be on its way: wait for it without blocking a thread
                return extractMaterializer(mat -> completeWithFuture(formBody(req, mat)
                        .thenApply(form -> submit(side, parameters(req, form)::get))));
            }
            return complete(submit(side, queryParameters(req)));
        });
    }

    /**
     * The parameters of an order without a form body: a query string that needs no decoding is
     * split by {@link OrderParams#plainQuery} (Akka's query model costs a Scala map and its Java
     * copy per request), any other by Akka HTTP. Throws on a query string Akka cannot parse.
     */
    private static java.util.function.Function<String, List<String>> queryParameters(HttpRequest req) {
        java.util.function.Function<String, List<String>> plain = OrderParams.plainQuery(req.getUri().rawQueryString().orElse(null));
        if (plain != null) return plain;
        return parameters(req, null)::get;
    }

    private HttpResponse submit(Side side, java.util.function.Function<String, List<String>> params) {
        OrderRequest request;
        try {
            request = OrderParams.parse(side, params, gateway.config().products());
        } catch (BadRequest e) {
            gateway.rejected();
            return json(e.status(), JsonText.error(e.getMessage()));
        }
        return switch (gateway.submit(request)) {
            case OrderGateway.Accepted a -> json(202, Answers.accepted(a));
            case OrderGateway.Refused r -> json(503, Answers.refused(r)).addHeader(RetryAfter.create(1L));
        };
    }

    private static boolean isForm(HttpEntity entity) {
        return entity.getContentType().mediaType().equals(MediaTypes.APPLICATION_X_WWW_FORM_URLENCODED)
                && !entity.isKnownEmpty();
    }

    private static CompletionStage<String> formBody(HttpRequest req, Materializer mat) {
        return req.entity().toStrict(FORM_WAIT_MS, mat).thenApply(s -> s.getData().decodeString(StandardCharsets.UTF_8));
    }

    /** Query string and form body together, as a servlet's getParameterValues sees them. */
    private static Map<String, List<String>> parameters(HttpRequest req, String formBody) {
        Map<String, List<String>> params = new HashMap<>(req.getUri().query().toMultiMap());
        if (formBody != null && !formBody.isEmpty()) {
            Query.create(formBody).toMultiMap().forEach((k, v) -> params.merge(k, v, (a, b) -> {
                List<String> both = new ArrayList<>(a);
                both.addAll(b);
                return both;
            }));
        }
        return params;
    }

    // ---- test-only fault injection (docs/contract-details.md) ----

    private Route crash() {
        if (crasher == null) return reject(); // FAULTS off: an unknown path, 404
        return extractRequest(req -> {
            if (req.method() != HttpMethods.POST) {
                return complete(json(405, Answers.methodNotAllowed(req.method().name(), FaultInjection.PATH))
                        .addHeader(Allow.create(HttpMethods.POST)));
            }
            List<String> engine = parameters(req, null).get("engine");
            try {
                int n = FaultInjection.engine(engine == null || engine.isEmpty() ? null : engine.get(0), gateway.config());
                crasher.crash(n);
                return complete(json(202, FaultInjection.accepted(n)));
            } catch (BadRequest e) {
                return complete(json(400, JsonText.error(e.getMessage())));
            }
        });
    }

    // ---- reads ----

    /**
     * A bad id is answered before the view enters the read path; a view beyond VIEW_LIMIT is
     * refused before anything is read; the rest wait for their fills on the read pool, never
     * past READ_TIMEOUT_MS.
     */
    private Route orderView(String idText) {
        long id;
        try {
            id = OrderViews.parseId(idText);
        } catch (BadRequest e) {
            return complete(json(400, JsonText.error(e.getMessage())));
        }
        OrderReads.View view = reads.enter();
        if (view == null) return complete(viewRefused(reads.path()));
        OrderViews.Lookup lookup = OrderViews.lookup(gateway, id); // before the fills: see OrderViews
        return completeWithFuture(view.fills(id).handle((fills, e) -> {
            if (e != null) return readFailed(e, reads.path());
            OrderViews.Answer a = lookup.answer(fills);
            return json(a.status(), a.body());
        }));
    }

    /** VIEW_LIMIT views are in the read path: 503 at once, nothing read. */
    public static HttpResponse viewRefused(ReadPath path) {
        return json(503, JsonText.error(path.refusal())).addHeader(RetryAfter.create(1L));
    }

    /** A view's read failed: 504 past its deadline, otherwise the read server is away (503). */
    public static HttpResponse readFailed(Throwable e, ReadPath path) {
        if (OrderReads.timedOut(e)) return json(504, JsonText.error(path.timedOut()));
        return json(503, Answers.DATABASE_UNREACHABLE).addHeader(RetryAfter.create(1L));
    }

    private Route health() {
        return completeWithFuture(db.healthy().thenApply(up -> up
                ? json(200, Answers.HEALTH_UP)
                : json(503, Answers.HEALTH_DOWN)));
    }

    private Route onlyGet(java.util.function.Supplier<Route> inner) {
        return extractRequest(req -> {
            HttpMethod m = req.method();
            if (m == HttpMethods.GET || m == HttpMethods.HEAD) return inner.get();
            return complete(json(405, Answers.methodNotAllowed(m.name(), req.getUri().path()))
                    .addHeader(Allow.create(HttpMethods.GET)));
        });
    }

    // ---- JSON answers for everything else ----

    public static HttpResponse json(int status, String body) {
        return HttpResponse.create().withStatus(status).withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body));
    }

    /** 404 names the path; any other rejection keeps Akka's status, headers and message, as JSON. */
    private RejectionHandler rejections() {
        return RejectionHandler.newBuilder()
                .handleNotFound(extractUri(uri -> complete(json(404, Answers.notFound(uri.path())))))
                .build()
                .withFallback(RejectionHandler.defaultHandler())
                .mapRejectionResponse(ApiRoutes::asJson);
    }

    private ExceptionHandler exceptions() {
        return ExceptionHandler.newBuilder()
                .match(IllegalUriException.class, e -> complete(json(400, JsonText.error("bad request: " + e.info().summary()))))
                // a body that breaks off or lies about its framing (a bad chunk, a wrong length): the client's fault
                .match(EntityStreamSizeException.class, e -> complete(json(413, JsonText.error("request body too large"))))
                .match(EntityStreamException.class, e -> complete(json(400, JsonText.error("bad request: " + e.info().summary()))))
                .match(Throwable.class, e -> badBody(e) != null, e -> complete(json(400, JsonText.error("bad request body: " + badBody(e)))))
                .matchAny(e -> {
                    System.err.println("request failed: " + e);
                    return complete(json(500, JsonText.error("internal error")));
                })
                .build();
    }

    /**
     * The client's fault while its body was read (a malformed chunked body, a
     * truncated entity): the message, or null when the failure is ours. A 4xx,
     * never a 500.
     */
    private static String badBody(Throwable e) {
        Throwable t = e;
        while ((t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof akka.http.scaladsl.model.EntityStreamException es) return es.info().summary();
        if (t instanceof akka.http.scaladsl.model.IllegalRequestException ir) return ir.info().summary();
        if (t instanceof akka.http.scaladsl.model.ParsingException pe) return pe.info().summary();
        return null;
    }

    /** A plain-text answer of Akka HTTP's becomes {"error": text}; JSON ones pass. */
    static HttpResponse asJson(HttpResponse r) {
        HttpEntity e = r.entity();
        if (e.getContentType().mediaType().equals(MediaTypes.APPLICATION_JSON)) return r;
        String text = e instanceof HttpEntity.Strict s ? s.getData().decodeString(StandardCharsets.UTF_8).trim() : "";
        if (text.isEmpty()) text = r.status().reason();
        return r.withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, JsonText.error(text)));
    }
}
