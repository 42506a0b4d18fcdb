package tradebench.spray.db;

import com.github.jasync.sql.db.Configuration;
import com.github.jasync.sql.db.mysql.MySQLConnection;
import com.github.jasync.sql.db.mysql.pool.MySQLConnectionFactory;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.nio.NioEventLoopGroup;
import java.net.ConnectException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * The read pool's connections: jasync's, except that a server that closes the connection
 * before its handshake (a proxy in front of a server that is away, a server refusing work)
 * fails the connection at once, "database unreachable", as a refused connection does. jasync
 * itself leaves such a connection waiting for its create time-out, which would make a refusing
 * server look like one that does not answer (504 instead of 503).
 */
final class ReadConnections extends MySQLConnectionFactory {
    /** The channel the connection being made on this thread registers, watched by {@link #create}. */
    private static final ThreadLocal<Consumer<Channel>> WATCH = new ThreadLocal<>();

    ReadConnections(Configuration configuration) {
        super(configuration);
    }

    @Override
    public CompletableFuture<MySQLConnection> create() {
        CompletableFuture<MySQLConnection> made = new CompletableFuture<>();
        WATCH.set(channel -> channel.closeFuture().addListener(f -> made.completeExceptionally(
                new ConnectException("the read server closed the connection before its handshake"))));
        try {
            super.create().whenComplete((c, e) -> {
                if (e != null) made.completeExceptionally(e);
                else if (!made.complete(c)) c.disconnect(); // closed first: the pool never sees it
            });
        } finally {
            WATCH.remove();
        }
        return made;
    }

    /**
     * The read pool's event loop (its own: the writers' never runs a view's work); a channel registered while {@link #create} makes a read
     * connection on the same thread (Netty's bootstrap registers it on the caller's thread) is
     * handed to its watch. The writers' connections are never watched.
     */
    static final class Loops extends NioEventLoopGroup {
        Loops(int threads, ThreadFactory factory) {
            super(threads, factory);
        }

        @Override
        public ChannelFuture register(Channel channel) {
            ChannelFuture registered = super.register(channel);
            Consumer<Channel> watch = WATCH.get();
            if (watch != null) watch.accept(channel);
            return registered;
        }
    }
}
