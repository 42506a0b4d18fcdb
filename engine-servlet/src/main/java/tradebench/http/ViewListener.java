package tradebench.http;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/** An asynchronous view's time-out and error: answered (504, or nothing to a client gone), then {@code stop}. */
final class ViewListener implements AsyncListener {
    private final OnceAnswer once;
    private final Runnable stop;
    private final tradebench.wire.OrderViews.Answer timedOut;

    ViewListener(OnceAnswer once, tradebench.wire.OrderViews.Answer timedOut, Runnable stop) {
        this.once = once;
        this.timedOut = timedOut;
        this.stop = stop;
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        once.sendOnTimeout(timedOut);
        stop.run();
    }

    @Override
    public void onError(AsyncEvent event) {
        once.sendOnTimeout(timedOut);
        stop.run();
    }

    @Override
    public void onComplete(AsyncEvent event) {
        // answered
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // one asynchronous cycle per view
    }
}
