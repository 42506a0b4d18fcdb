package tradebench.ring;

/**
 * A ring of members 0..N-1, each forwarding what it receives to the next (Tally#arrived says whether), built on one
 * concurrency model. Closing stops every thread it started.
 */
public interface Ring extends AutoCloseable {
    /** Hands MESSAGES messages to member 0 and returns; the Tally says when they all reached the end. */
    void send(int messages);

    @Override
    void close();
}
