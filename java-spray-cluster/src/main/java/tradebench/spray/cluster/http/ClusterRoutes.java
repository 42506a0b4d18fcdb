package tradebench.spray.cluster.http;

import akka.actor.ActorSelection;
import akka.actor.ActorSystem;
import akka.cluster.Cluster;
import akka.cluster.Member;
import akka.cluster.MemberStatus;
import akka.http.javadsl.model.HttpMethods;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.headers.RetryAfter;
import akka.http.javadsl.server.AllDirectives;
import akka.http.javadsl.server.Route;
import akka.pattern.Patterns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import tradebench.engine.OrderGateway;
import tradebench.json.JsonText;
import tradebench.model.OrderStatus;
import tradebench.spray.cluster.ClusterEngines;
import tradebench.spray.cluster.ClusterProtocol;
import tradebench.spray.cluster.ClusterSettings;
import tradebench.spray.cluster.StatsAnswer;
import tradebench.spray.db.AsyncDatabase;
import tradebench.spray.db.OrderReads;
import tradebench.spray.http.ApiRoutes;
import tradebench.wire.BadRequest;
import tradebench.wire.OrderViews;

import static akka.http.javadsl.server.PathMatchers.remaining;

/**
 * Cluster mode's answers that need the other members, in front of
 * {@link ApiRoutes} (everything else, and every 4xx, is ApiRoutes'):
 * <ul>
 * <li>{@code GET /orders/{id}} of an id another member issued: asked of that
 *     member's desk; when that member is gone (downed or removed), asked of
 *     the partitions and SALES: open where a partition holds it, else its
 *     fills, else lost; never 404;</li>
 * <li>{@code GET /stats}: the cluster's totals at the top level (the shape of
 *     contract section 3), this member's own figures under {@code member}, and
 *     which members answered under {@code cluster};</li>
 * <li>{@code GET /health}: 200 only while the database answers and this member
 *     is Up in the cluster; the membership as this member sees it.</li>
 * </ul>
 */
public final class ClusterRoutes extends AllDirectives {
    private static final Duration ASK = Duration.ofSeconds(2);

    private final ClusterEngines engines;
    private final OrderGateway gateway;
    private final AsyncDatabase db;
    private final OrderReads reads;
    private final ClusterSettings settings;
    private final ActorSystem system;

    public ClusterRoutes(ClusterEngines engines, OrderGateway gateway, AsyncDatabase db) {
        this.engines = engines;
        this.gateway = gateway;
        this.db = db;
        this.reads = db.reads();
        this.settings = engines.settings();
        this.system = engines.system();
    }

    /** These routes first; whatever they reject (other paths, methods, local or malformed ids) goes to {@code rest}. */
    public Route route(Route rest) {
        return concat(
                path("stats", () -> readOnly(this::stats)),
                path("health", () -> readOnly(this::health)),
                pathPrefix("orders", () -> path(remaining(), idText -> readOnly(() -> remoteOrder(idText)))),
                rest);
    }

    private Route readOnly(java.util.function.Supplier<Route> inner) {
        return extractRequest(req -> req.method() == HttpMethods.GET || req.method() == HttpMethods.HEAD ? inner.get() : reject());
    }

    // ---- /orders/{id} of another member ----

    /**
     * The view of an id another member issued, answered here: it enters this member's read path
     * (VIEW_LIMIT, READ_TIMEOUT_MS from now), asks the issuer what it knows of the order, then
     * reads the fills through this member's read pool. It leaves the read path once answered.
     */
    private Route remoteOrder(String idText) {
        long id;
        try {
            id = OrderViews.parseId(idText);
        } catch (BadRequest e) {
            return reject(); // ApiRoutes answers the 400
        }
        int issuer = ClusterSettings.issuerOf(id);
        if (issuer == settings.member() || issuer >= settings.seeds().size()) return reject(); // ours (or nobody's): ApiRoutes
        OrderReads.View view = reads.enter();
        if (view == null) return complete(ApiRoutes.viewRefused(reads.path()));
        CompletionStage<HttpResponse> answer = remoteView(id, settings.seeds().get(issuer), issuer, view);
        return completeWithFuture(answer.whenComplete((r, e) -> view.leave()));
    }

    private CompletionStage<HttpResponse> remoteView(long id, String issuerAddress, int issuer, OrderReads.View view) {
        if (!isMember(issuerAddress)) return withoutIssuer(id, issuerAddress, view); // nobody to ask
        ActorSelection desk = system.actorSelection(settings.address(issuer) + "/user/desk");
        return Patterns.ask(desk, new ClusterProtocol.ViewRequest(id), ASK)
                .thenApply(r -> (ClusterProtocol.ViewStatus) r)
                .handle((status, e) -> {
                    if (e != null) return withoutIssuer(id, issuerAddress, view);
                    // a member started again does not know its earlier incarnation's ids
                    if (status.unknownToIssuer() && engines.departures().issuedByGone(issuerAddress, id)) {
                        return ofGoneIssuer(id, view);
                    }
                    return withFills(status.lookup(), view);
                })
                .thenCompose(r -> r);
    }

    /** The view once its fills are read through this member's read pool: 504 past its deadline, 503 when the read server is away. */
    private CompletionStage<HttpResponse> withFills(OrderViews.Lookup lookup, OrderReads.View view) {
        return view.fills(lookup.id()).handle((fills, e) -> {
            if (e != null) return ApiRoutes.readFailed(e, reads.path());
            OrderViews.Answer a = lookup.answer(fills);
            return ApiRoutes.json(a.status(), a.body());
        });
    }

    /**
     * The issuing member does not answer. Gone (this member saw it downed or
     * removed after it issued the id): what the partitions and SALES say. Still
     * a member (unreachable, or not yet downed): 503, it may answer in a
     * moment. Never seen leaving: the fills from SALES ({@code unknown}), or 404.
     */
    private CompletionStage<HttpResponse> withoutIssuer(long id, String issuerAddress, OrderReads.View view) {
        MemberStatus status = statusOf(issuerAddress);
        if (status == MemberStatus.down()) engines.departures().departed(issuerAddress, System.currentTimeMillis()); // before the event
        if (isMember(issuerAddress)) {
            return CompletableFuture.completedFuture(ApiRoutes.json(503,
                    "{\"error\":\"the member that accepted order " + id + " does not answer\"}").addHeader(RetryAfter.create(1L)));
        }
        if (engines.departures().issuedByGone(issuerAddress, id)) return ofGoneIssuer(id, view);
        return withFills(new OrderViews.Lookup(id, null, null, false), view);
    }

    /**
     * An order of a member that is gone, with what it knew of the order: open
     * on the partition that holds it (asked of every partition), else with its
     * fills from SALES {@code unknown} (they may have covered it: its quantity
     * went with its member), else {@code lost}. The partitions are asked
     * before SALES is read, as in {@link OrderViews}.
     */
    private CompletionStage<HttpResponse> ofGoneIssuer(long id, OrderReads.View view) {
        return engines.findHeld(id, ASK).handle((held, e) -> {
            if (e != null) {
                return CompletableFuture.completedFuture(ApiRoutes.json(503,
                        "{\"error\":\"cannot tell what became of order " + id + " now\"}").addHeader(RetryAfter.create(1L)));
            }
            return withFills(held != null ? new OrderViews.Lookup(id, held, OrderStatus.OPEN, false)
                    : new OrderViews.Lookup(id, null, OrderStatus.LOST, false), view);
        }).thenCompose(r -> r);
    }

    /** Is {@code hostPort} in the membership, not downed (it may be unreachable)? */
    private boolean isMember(String hostPort) {
        MemberStatus s = statusOf(hostPort);
        return s != null && s != MemberStatus.down() && s != MemberStatus.removed();
    }

    /** The status of the member at {@code hostPort} as this member sees it, or null when it is not in the membership. */
    private MemberStatus statusOf(String hostPort) {
        for (Member m : Cluster.get(system).state().getMembers()) {
            if (hostPort(m).equals(hostPort)) return m.status();
        }
        return null;
    }

    // ---- /stats ----

    private Route stats() {
        List<CompletableFuture<ClusterProtocol.MemberStats>> asks = new ArrayList<>();
        for (int i = 0; i < settings.seeds().size(); i++) {
            ActorSelection desk = system.actorSelection(settings.address(i) + "/user/desk");
            asks.add(Patterns.ask(desk, ClusterProtocol.StatsRequest.INSTANCE, ASK).toCompletableFuture()
                    .thenApply(r -> (ClusterProtocol.MemberStats) r)
                    .exceptionally(e -> null));
        }
        CompletableFuture<HttpResponse> all = CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new))
                .thenApply(v -> {
                    List<ClusterProtocol.MemberStats> got = new ArrayList<>();
                    List<String> missing = new ArrayList<>();
                    ClusterProtocol.MemberStats self = null;
                    for (int i = 0; i < asks.size(); i++) {
                        ClusterProtocol.MemberStats m = asks.get(i).join();
                        if (m == null) {
                            missing.add(settings.seeds().get(i));
                        } else {
                            got.add(m);
                            if (i == settings.member()) self = m;
                        }
                    }
                    return ApiRoutes.json(200, StatsAnswer.json(gateway.stats().variant(), self, got, missing));
                });
        return completeWithFuture(all);
    }

    // ---- /health ----

    private Route health() {
        Cluster cluster = Cluster.get(system);
        return completeWithFuture(db.healthy().thenApply(up -> {
            var state = cluster.state();
            String selfStatus = cluster.selfMember().status().toString();
            StringBuilder members = new StringBuilder("[");
            boolean first = true;
            for (Member m : state.getMembers()) {
                if (!first) members.append(',');
                first = false;
                members.append("{\"address\":").append(JsonText.quote(hostPort(m))).append(",\"status\":")
                        .append(JsonText.quote(m.status().toString())).append(",\"reachable\":")
                        .append(!state.getUnreachable().contains(m)).append('}');
            }
            members.append(']');
            String membership = "\"member\":" + JsonText.quote(settings.self()) + ",\"memberStatus\":"
                    + JsonText.quote(selfStatus) + ",\"members\":" + members;
            boolean isUp = "Up".equals(selfStatus) && engines.formed();
            if (up && isUp) return ApiRoutes.json(200, "{\"status\":\"up\"," + membership + "}");
            String why = !up ? "database unreachable" : !"Up".equals(selfStatus) ? "not up in the cluster (" + selfStatus + ")"
                    : "waiting for the other members";
            return ApiRoutes.json(503, "{\"status\":\"down\",\"error\":" + JsonText.quote(why) + "," + membership + "}");
        }));
    }

    private static String hostPort(Member m) {
        return m.address().host().getOrElse(() -> "?") + ":" + m.address().port().getOrElse(() -> 0);
    }
}
