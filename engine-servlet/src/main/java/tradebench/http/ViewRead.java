package tradebench.http;

import java.sql.SQLException;
import tradebench.db.OrderReads;
import tradebench.db.ReadTimedOut;
import tradebench.json.JsonText;
import tradebench.wire.Answers;
import tradebench.wire.OrderViews;

/** A view's read and the answer it makes, whichever thread it runs on. */
final class ViewRead {
    private ViewRead() {
    }

    static OrderViews.Answer answer(OrderReads reads, OrderViews.Lookup lookup, long deadlineNanos) {
        try {
            return lookup.answer(reads.fills(lookup.id(), deadlineNanos));
        } catch (ReadTimedOut e) {
            return timedOut(reads);
        } catch (SQLException e) {
            return unreachable();
        }
    }

    static OrderViews.Answer timedOut(OrderReads reads) {
        return new OrderViews.Answer(504, JsonText.error(reads.path().timedOut()));
    }

    static OrderViews.Answer refused(OrderReads reads) {
        return new OrderViews.Answer(503, JsonText.error(reads.path().refusal()));
    }

    static OrderViews.Answer unreachable() {
        return new OrderViews.Answer(503, Answers.DATABASE_UNREACHABLE);
    }
}
